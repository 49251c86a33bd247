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

	"github.com/cape-go/cape/bench/stencilkernel"
	"github.com/cape-go/cape/bench/workkernel"
)

func main() {
	n := flag.Int("n", 256, "grid size (n×n points)")
	iters := flag.Int("iters", 100, "number of Jacobi iterations")
	flag.Parse()
	size := max(*n, 3)

	u := make([]float64, size*size)
	v := make([]float64, size*size)
	// Each node fills the rows it will sweep (first touch): under
	// distributed homes no node then holds a page of the grids it never
	// reads.
	//cape:parallel for schedule(static)
	for i := 0; i < size; i++ {
		for j := 0; j < size; j++ {
			k := i*size + j
			u[k] = workkernel.Random(k)
			v[k] = u[k]
		}
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

	fmt.Println(stencilkernel.Line(u, size, *iters, diff))
	fmt.Fprintf(os.Stderr, "stencil: iterations %.6fs\n", elapsed.Seconds())
}
