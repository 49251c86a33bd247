package main

import (
	"fmt"
	"slices"
)

// A clone of memory the iteration did not make may alias what the
// function was handed: refused as before.
func main() {
	n := 40
	shared := make([]int, n)
	out := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		r := slices.Grow(shared[:i], 2) // want "r is written through in the parallel region"
		r[0] = i
		out[i] = len(r)
	}
	fmt.Println(out[3], shared[0])
}
