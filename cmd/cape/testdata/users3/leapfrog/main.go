// Leapfrog solves the 1-D wave equation with three time levels, a new
// level made every step and the oldest dropped by the rotation.
package main

import (
	"flag"
	"fmt"
)

func main() {
	n := flag.Int("n", 20000, "points")
	steps := flag.Int("steps", 300, "time steps")
	flag.Parse()
	const c2 = 0.25
	prev := make([]float64, *n)
	cur := make([]float64, *n)
	for i := range cur {
		x := float64(i) / float64(*n)
		if x > 0.4 && x < 0.6 {
			prev[i] = (x - 0.4) * (0.6 - x) * 100
			cur[i] = prev[i]
		}
	}
	for s := 0; s < *steps; s++ {
		next := make([]float64, *n)
		//cape:parallel for
		for i := 1; i < *n-1; i++ {
			next[i] = 2*cur[i] - prev[i] + c2*(cur[i-1]-2*cur[i]+cur[i+1])
		}
		prev, cur = cur, next
	}
	energy := 0.0
	for _, v := range cur {
		energy += v * v
	}
	fmt.Printf("energy %.12e mid %.12e\n", energy, cur[*n/2])
}
