// Command ckptinput is a test program for restarts from a compacted
// checkpoint log: a Jacobi sweep whose hot edge's temperature is read from
// standard input and whose grid size and sweeps are arguments, with a
// checkpoint point at the top of its time loop. It prints the final grid's
// sum.
package main

import (
	"flag"
	"fmt"
)

func main() {
	n := flag.Int("n", 48, "grid size")
	iters := flag.Int("iters", 200, "sweeps")
	flag.Parse()
	var top float64
	if _, err := fmt.Scan(&top); err != nil {
		panic(err)
	}
	N := *n
	u := make([]float64, N*N)
	v := make([]float64, N*N)
	for j := 0; j < N; j++ {
		u[j], v[j] = top, top
	}
	for it := 0; it < *iters; it++ {
		//cape:checkpoint it, u, v
		//cape:parallel for schedule(static)
		for i := 1; i < N-1; i++ {
			for j := 1; j < N-1; j++ {
				v[i*N+j] = 0.25 * (u[(i-1)*N+j] + u[(i+1)*N+j] + u[i*N+j-1] + u[i*N+j+1])
			}
		}
		u, v = v, u
	}
	s := 0.0
	for _, x := range u {
		s += x
	}
	fmt.Printf("sum %.12f\n", s)
}
