// Command stencil iterates a 2-D Jacobi stencil on an n×n grid whose top
// edge is held at 1 and prints a checksum of the final grid.
//
// Every iteration is one parallel region: the rows are split across the
// nodes, and what each node wrote is exchanged before the next iteration.
// This is the communication-bound case of CAPE: every written byte travels
// to every node.
package main

import (
	"flag"
	"fmt"
	"math"
)

func main() {
	n := flag.Int("n", 256, "grid size (n×n points)")
	iters := flag.Int("iters", 100, "number of Jacobi iterations")
	flag.Parse()
	size := *n
	if size < 3 {
		size = 3
	}

	u := make([]float64, size*size)
	v := make([]float64, size*size)
	for j := range size {
		u[j], v[j] = 1, 1 // the hot top edge
	}

	var diff float64
	for it := 0; it < *iters; it++ {
		diff = 0
		//cape:parallel for schedule(static) reduction(max:diff)
		for i := 1; i < size-1; i++ {
			for j := 1; j < size-1; j++ {
				k := i*size + j
				x := 0.25 * (u[k-size] + u[k+size] + u[k-1] + u[k+1])
				diff = max(diff, math.Abs(x-u[k]))
				v[k] = x
			}
		}
		u, v = v, u
	}

	var sum, weighted float64
	for i := range size {
		for j := range size {
			sum += u[i*size+j]
			weighted += u[i*size+j] * float64(i+1)
		}
	}
	fmt.Printf("n=%d iters=%d sum=%.9f weighted=%.9f last-diff=%.3e\n", size, *iters, sum, weighted, diff)
}
