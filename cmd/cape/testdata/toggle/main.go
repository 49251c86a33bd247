// Command toggle runs sweeps (static Jacobi into the other buffer, then a
// red-black Gauss-Seidel with dynamic chunks of 3 rows, on a 301-wide
// grid) on values that toggle: every write flips the cell between 0 and 1,
// so a byte merged against a stale twin (a view of the page a few regions
// old) would silently keep its old value. It prints the number of ones
// after every sweep and a hash at the end.
package main

import (
	"flag"
	"fmt"
	"math"
)

func main() {
	w := flag.Int("w", 301, "width")
	ht := flag.Int("h", 157, "height")
	iters := flag.Int("iters", 40, "iterations")
	flag.Parse()
	W, H := *w, *ht
	u := make([]float64, W*H)
	v := make([]float64, W*H)
	for it := 0; it < *iters; it++ {
		//cape:parallel for schedule(static)
		for i := 1; i < H-1; i++ {
			for j := 1; j < W-1; j++ {
				k := i*W + j
				v[k] = 1 - v[k] + 0*u[k-W]
			}
		}
		u, v = v, u
		for color := 0; color < 2; color++ {
			//cape:parallel for schedule(dynamic, 3)
			for i := 1; i < H-1; i++ {
				for j := 1 + (i+color)%2; j < W-1; j += 2 {
					k := i*W + j
					u[k] = 1 - u[k] + 0*u[k-W]
				}
			}
		}
		var ones, onesV int
		for k := range u {
			if u[k] == 1 {
				ones++
			}
			if v[k] == 1 {
				onesV++
			}
		}
		fmt.Printf("it %d ones %d %d\n", it, ones, onesV)
	}
	h := uint64(14695981039346656037)
	for k := range u {
		h = (h ^ math.Float64bits(u[k])) * 1099511628211
		h = (h ^ math.Float64bits(v[k])) * 1099511628211
	}
	fmt.Printf("hash=%016x\n", h)
}
