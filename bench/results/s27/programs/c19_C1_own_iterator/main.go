package main

import (
	"fmt"
	"iter"
)

func evens(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i += 2 {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	n := 40
	out := make([]int, n)
	//cape:parallel for
	for i := range n {
		s := 0
		for e := range evens(i) {
			s += e
		}
		out[i] = s
	}
	fmt.Println(out)
}
