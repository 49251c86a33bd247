// Command ckptpoint is a test program for checkpoint points: a Jacobi
// stencil written against the runtime's API, with a cape.Checkpoint call at
// the top of its time loop naming the live variables (the iteration
// counter and the two grids it swaps). It prints a hash of the final grid.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/cape-go/cape/cape"
)

func main() {
	cape.Must(cape.Init())
	defer cape.Finalize()
	n := flag.Int("n", 64, "grid size")
	iters := flag.Int("iters", 2000, "iterations")
	flag.Parse()
	size := *n
	u := cape.Make[float64](size * size)
	v := cape.Make[float64](size * size)
	for j := range size {
		u[j], v[j] = 1, 1
	}
	for it := 0; it < *iters; it++ {
		cape.Checkpoint("main.go:loop", &it, &u, &v)
		r := cape.Begin("jacobi")
		cape.Must(r.Start())
		lo, hi := r.Static(size - 2)
		for i := lo + 1; i < hi+1; i++ {
			for j := 1; j < size-1; j++ {
				k := i*size + j
				v[k] = 0.25 * (u[k-size] + u[k+size] + u[k-1] + u[k+1])
			}
		}
		d, err := r.Create()
		cape.Must(err)
		cape.Must(r.Stop())
		cape.Must(r.Exchange(d))
		u, v = v, u
	}
	hash := uint64(14695981039346656037)
	for _, x := range u {
		hash ^= math.Float64bits(x)
		hash *= 1099511628211
	}
	fmt.Printf("n=%d iters=%d hash=%016x\n", size, *iters, hash)
}
