// Rotate3 keeps three levels of a multistep scheme: the levels rotate
// (a, b, c = b, c, a) in one loop, and a new level is made every step and
// rotated in (u0, u1, u2 = u1, u2, next) in another.
package main

import (
	"flag"
	"fmt"
)

// advance writes dst from the two older levels.
func advance(dst, older, old []float64) {
	//cape:parallel for
	for i := 1; i < len(dst)-1; i++ {
		dst[i] = 0.5*old[i] + 0.25*(old[i-1]+old[i+1]) - 0.1*older[i] + 0.1*older[i]*0.5
	}
}

func main() {
	n := flag.Int("n", 5000, "points")
	steps := flag.Int("steps", 200, "time steps")
	flag.Parse()
	a, b, c := make([]float64, *n), make([]float64, *n), make([]float64, *n)
	a[*n/2], b[*n/2] = 100, 100
	for s := 0; s < *steps; s++ {
		advance(c, a, b)
		a, b, c = b, c, a
	}
	u0, u1, u2 := make([]float64, *n), make([]float64, *n), make([]float64, *n)
	u0[*n/3], u1[*n/3], u2[*n/3] = 10, 10, 10
	for s := 0; s < *steps; s++ {
		next := make([]float64, *n)
		advance(next, u1, u2)
		u0, u1, u2 = u1, u2, next
	}
	sa, su := 0.0, 0.0
	for i := range b {
		sa += b[i]
		su += u2[i] + u0[i]
	}
	fmt.Printf("cycle %.12e new-level %.12e\n", sa, su)
}
