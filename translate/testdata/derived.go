package main

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// Memory an iteration makes through other packages' functions that return
// what their arguments refer to, or memory they made (slices.Clone,
// strconv.AppendInt), from memory the iteration made, is its own.
func main() {
	n, m := 40, 7
	data := make([]int, n*m)
	for k := range data {
		data[k] = (k*7919 + 13) % 1009
	}
	top := make([]int, n)
	width := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		row := make([]int, m)
		copy(row, data[i*m:(i+1)*m])
		r2 := slices.Clone(row)
		sort.Ints(r2)
		r2[0] += r2[m-1]
		top[i] = r2[0]
		buf := make([]byte, 0, 16)
		buf = strconv.AppendInt(buf, int64(top[i]), 10)
		buf[0] = '9'
		width[i] = len(buf) + int(buf[0]-'0')
	}
	fmt.Println(top[3], width[5])
}
