// Command jacobi iterates the 2-D Jacobi sweep of examples/stencil on an
// n×n grid whose every point starts at a deterministic pseudo-random value,
// so that every point changes in every iteration (examples/stencil heats
// the grid from one edge: most of its bytes never change). It is `cape
// bench jacobi`'s program.
//
// It prints examples/stencil's line (sums, the last largest change and
// hash=, an FNV-1a hash of the bits of every point of the final grid) on
// stdout and the time of the iterations on stderr.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"
)

// random returns a deterministic pseudo-random value in [0, 1) for index k
// (a splitmix64 step), the same on every node and in every baseline.
func random(k int) float64 {
	x := uint64(k)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

func main() {
	n := flag.Int("n", 256, "grid size (n×n points)")
	iters := flag.Int("iters", 100, "number of Jacobi iterations")
	flag.Parse()
	size := max(*n, 3)

	u := make([]float64, size*size)
	v := make([]float64, size*size)
	for k := range u {
		u[k] = random(k)
		v[k] = u[k]
	}

	var diff float64
	start := time.Now()
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
