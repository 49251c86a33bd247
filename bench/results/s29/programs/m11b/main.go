package main

import (
	"fmt"
)

func main() {
	n := 8
	lens := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		var buf []byte
		buf = fmt.Appendf(buf, "%d", i*i)
		buf = append(buf, ':')
		lens[i] = len(buf) + int(buf[0])
	}
	fmt.Println(lens)
}
