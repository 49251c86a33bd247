// Command mathmax iterates Jacobi sweeps until the largest change, a max
// reduction updated with math.Max, falls under a tolerance; math.Min keeps
// the smallest value.
package main

import (
	"fmt"
	"math"
)

func main() {
	n := 64
	u := make([]float64, n*n)
	v := make([]float64, n*n)
	for j := 0; j < n; j++ {
		u[j], v[j] = 1, 1
	}
	iters := 0
	diff := math.Inf(1)
	lo := 0.0
	for diff > 1e-3 && iters < 300 {
		diff, lo = 0, math.Inf(1)
		//cape:parallel for reduction(max:diff) reduction(min:lo)
		for i := 1; i < n-1; i++ {
			for j := 1; j < n-1; j++ {
				nv := 0.25 * (u[(i-1)*n+j] + u[(i+1)*n+j] + u[i*n+j-1] + u[i*n+j+1])
				v[i*n+j] = nv
				diff = math.Max(diff, math.Abs(nv-u[i*n+j]))
				lo = math.Min(nv, lo)
			}
		}
		u, v = v, u
		iters++
	}
	fmt.Printf("%d %.6e %.6e %.12g\n", iters, diff, lo, u[n+1])
}
