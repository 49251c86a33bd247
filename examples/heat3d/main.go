// Command heat3d iterates an explicit 3-D heat equation step, the 7-point
// stencil, on an n×n×n grid whose points start at deterministic
// pseudo-random values (the faces stay fixed). Every iteration is one
// parallel region over the interior planes. It is `cape bench heat3d`'s
// program.
//
// It prints `heat3d n=N iters=I sum=S hash=H` on stdout, H an FNV-1a hash
// of the bits of every point of the final grid, and the time of the
// iterations on stderr.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cape-go/cape/bench/workkernel"
)

func main() {
	n := flag.Int("n", 64, "grid size (n×n×n points)")
	iters := flag.Int("iters", 50, "number of time steps")
	flag.Parse()
	size := max(*n, 3)
	plane := size * size

	u := make([]float64, plane*size)
	v := make([]float64, plane*size)
	for k := range u {
		u[k] = workkernel.Random(k)
		v[k] = u[k]
	}

	start := time.Now()
	for it := 0; it < *iters; it++ {
		//cape:parallel for schedule(static)
		for i := 1; i < size-1; i++ {
			for j := 1; j < size-1; j++ {
				for k := 1; k < size-1; k++ {
					c := i*plane + j*size + k
					s := u[c-plane] + u[c+plane] + u[c-size] + u[c+size] + u[c-1] + u[c+1]
					v[c] = u[c] + float64(0.125*(s-6*u[c]))
				}
			}
		}
		u, v = v, u
	}
	elapsed := time.Since(start)

	fmt.Println(workkernel.Heat3DLine(u, size, *iters))
	fmt.Fprintf(os.Stderr, "heat3d: iterations %.6fs\n", elapsed.Seconds())
}
