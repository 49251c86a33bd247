// Command hintloops runs loops whose regions the translator gives hints
// (write bounds, clean loops), between which sequential code writes the
// arena, so that a monitor trusting a hint too far would lose or invent a
// write: each phase prints a checksum that go run also prints.
package main

import (
	"flag"
	"fmt"
	"math"
)

func sum(a []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range a {
		h ^= math.Float64bits(x)
		h *= 1099511628211
	}
	return h
}

func main() {
	n := flag.Int("n", 384, "grid size")
	iters := flag.Int("iters", 40, "iterations of the first loop")
	flag.Parse()
	size := *n
	a := make([]float64, size*size)
	b := make([]float64, size*size)
	for j := range size {
		a[j], b[j] = 1, 1
	}
	// 1. A clean loop whose region writes one grid and reads the other.
	for it := 0; it < *iters; it++ {
		//cape:parallel for
		for i := 1; i < size-1; i++ {
			for j := 1; j < size-1; j++ {
				k := i*size + j
				b[k] = 0.25 * (a[k-size] + a[k+size] + a[k-1] + a[k+1])
			}
		}
		a, b = b, a
	}
	fmt.Printf("stencil %016x %016x\n", sum(a), sum(b))

	// 2. Sequential writes, then regions that put some of them back to
	// the value the last region saw there.
	for k := range a {
		if k%97 == 0 {
			a[k] = 5
		}
	}
	for it := 0; it < 4; it++ {
		//cape:parallel for
		for i := 0; i < size; i++ {
			for j := 0; j < size; j++ {
				k := i*size + j
				if k%97 == 0 {
					a[k] = float64(it % 2)
				} else {
					a[k] = a[k] + 1
				}
			}
		}
	}
	fmt.Printf("restore %016x\n", sum(a))

	// 3. A loop whose other code writes the arena: not clean.
	for it := 0; it < 6; it++ {
		a[it*size] = float64(it)
		//cape:parallel for
		for i := 0; i < size; i++ {
			b[i*size+1] = a[i*size] + float64(it)
		}
	}
	fmt.Printf("dirty loop %016x %016x\n", sum(a), sum(b))

	// 4. Clean loops one after the other over the same grids, the second
	// writing back the values the first found.
	for it := 0; it < 5; it++ {
		//cape:parallel for
		for i := 0; i < size; i++ {
			b[i*size+2] = float64(it)
		}
	}
	for it := 0; it < 5; it++ {
		//cape:parallel for
		for i := 0; i < size; i++ {
			b[i*size+2] = 0
			a[i*size+3] = float64(i + it)
		}
	}
	fmt.Printf("two loops %016x %016x\n", sum(a), sum(b))
}
