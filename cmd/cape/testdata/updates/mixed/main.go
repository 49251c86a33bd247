// Command mixed writes memory shared between iterations. By default two
// iterations write different values into one int (the same race under
// OpenMP), values that differ in disjoint bytes (1 and 256): under cape
// run the job stops with an error naming both nodes and the element. With
// -fields, neighbouring iterations write different bytes, int16s and
// struct fields of one 8-byte word, which are different variables: it
// prints what go run prints.
package main

import (
	"flag"
	"fmt"
)

type pair struct {
	a int32
	b int16
	c int8
}

func main() {
	fields := flag.Bool("fields", false, "write different variables of one word")
	flag.Parse()
	if !*fields {
		vals := []int{256, 512, 1, 2}
		idx := []int{0, 1, 0, 1}
		out := make([]int, 2)
		//cape:parallel for
		for i := 0; i < 4; i++ {
			out[idx[i]] = vals[i]
		}
		fmt.Println(out)
		return
	}
	n := 64
	bs := make([]byte, n)
	hs := make([]int16, n)
	ps := make([]pair, n/3+1)
	//cape:parallel for schedule(static, 1)
	for i := 0; i < n; i++ {
		bs[i] = byte(i*7 + 1)
		hs[i] = int16(i*300 + 1)
		switch i % 3 {
		case 0:
			ps[i/3].a = int32(i + 1)
		case 1:
			ps[i/3].b = int16(i + 1)
		default:
			ps[i/3].c = int8(i + 1)
		}
	}
	fmt.Println(bs, hs, ps)
}
