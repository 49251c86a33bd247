// Command privatebufs keeps, in each iteration, buffers and maps of its own:
// a byte slice declared without a value (or as []byte{} or []byte(nil))
// grown by strconv.AppendInt, a map counting what one iteration sees, and a
// map local to a function the region calls. Each run of that code makes
// its own, so nothing is shared; they were refused.
package main

import (
	"fmt"
	"strconv"
)

func distinct(xs []int) int {
	seen := make(map[int]bool)
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

func main() {
	data := make([]int, 100)
	for i := range data {
		data[i] = i * i % 17
	}
	out := make([]int, 10)
	digits := make([]int, 10)
	letters := make([]int, 10)
	//cape:parallel for
	for i := 0; i < 10; i++ {
		out[i] = distinct(data[i*10 : (i+1)*10])
		var b []byte
		b = strconv.AppendInt(b, int64(i*i*i), 10)
		c := []byte{}
		c = strconv.AppendInt(c, int64(i), 2)
		d := []byte(nil)
		d = strconv.AppendQuote(d, string(b))
		counts := map[byte]int{}
		for _, ch := range d {
			counts[ch]++
		}
		digits[i] = len(b) + len(c)
		letters[i] = len(counts)
	}
	fmt.Println(out, digits, letters)
}
