// Command stencil iterates a 2-D Jacobi stencil on an n×n grid whose top
// edge is held at 1 and prints a checksum of the final grid.
//
// Every iteration is one parallel region: the rows are split across the
// nodes, and what each node wrote is exchanged before the next iteration.
// This is the communication-bound case of CAPE: every written byte travels
// to every node.
//
// The output line ends with hash=, an FNV-1a hash of the bits of every
// point of the final grid, so that two runs that differ in a single bit of
// one point print different lines (cape bench stencil compares them). The
// time of the iterations goes to stderr.
//
// The //cape:checkpoint directive names the loop's live variables, so that
// `cape run --checkpoint DIR --checkpoint-max N` keeps its log under N bytes
// (see docs/checkpoints.md).
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"
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
	start := time.Now()
	for it := 0; it < *iters; it++ {
		// The live state at the top of an iteration: the arena (u and v's
		// elements) and these variables. cape run --checkpoint-max compacts
		// its log into an image here, and a restart resumes from it.
		//cape:checkpoint it, u, v
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
	elapsed := time.Since(start)

	var sum, weighted float64
	hash := uint64(14695981039346656037)
	for i := range size {
		for j := range size {
			sum += u[i*size+j]
			weighted += float64(u[i*size+j] * float64(i+1))
			hash ^= math.Float64bits(u[i*size+j])
			hash *= 1099511628211
		}
	}
	fmt.Printf("n=%d iters=%d sum=%.9f weighted=%.9f last-diff=%.3e hash=%016x\n", size, *iters, sum, weighted, diff, hash)
	fmt.Fprintf(os.Stderr, "stencil: iterations %.6fs\n", elapsed.Seconds())
}
