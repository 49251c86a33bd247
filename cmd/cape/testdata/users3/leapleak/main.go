// Leapleak is leapfrog with a rotation CAPE cannot prove: the new level is
// still used after the rotation, so two variables refer to it and nothing
// is freed (the translation warns). A test runs it in an arena too small
// for the leak, to show that the bound on leapfrog's arena is real.
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
	cur[*n/2], prev[*n/2] = 1, 1
	edge := 0.0
	for s := 0; s < *steps; s++ {
		next := make([]float64, *n)
		//cape:parallel for
		for i := 1; i < *n-1; i++ {
			next[i] = 2*cur[i] - prev[i] + c2*(cur[i-1]-2*cur[i]+cur[i+1])
		}
		prev, cur = cur, next
		edge += next[1]
	}
	fmt.Printf("mid %.12e edge %.12e\n", cur[*n/2], edge)
}
