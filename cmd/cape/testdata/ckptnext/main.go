// Command ckptnext is a test program for checkpoint images of a program
// that allocates differently each time around its time loop: README's
// time-stepping idiom (`next := make(...)`, compute, `u = next`) with a
// //cape:checkpoint point, a second buffer of another type made each step,
// an array made once before the loop, and the rows of two grids
// ([][]float64) swapped each step, and a table of another type that the
// loop makes once, at its sixth pass, and only its sequential code writes.
// A restart reaches the point with the buffers elsewhere than the saved run
// had them, and before the table exists; it restores the image's
// allocations.
package main

import (
	"flag"
	"fmt"
)

// tally is what the sequential code keeps of each step.
type tally struct {
	steps int64
	edge  float64
}

func main() {
	n := flag.Int("n", 512, "elements")
	steps := flag.Int("steps", 60, "time steps")
	flag.Parse()
	w := make([]int64, *n) // made once, written every step
	u := make([]float64, *n)
	for i := range u {
		u[i] = float64(i % 13)
	}
	g, h := make([][]float64, 16), make([][]float64, 16)
	for i := range g {
		g[i], h[i] = make([]float64, 16), make([]float64, 16)
		g[i][i] = float64(i)
	}
	var seen int64
	var tallies []tally
	for it := 0; it < *steps; it++ {
		//cape:checkpoint it, u, seen, g, h, tallies
		if it == 5 {
			tallies = make([]tally, 3)
		}
		next := make([]float64, *n)
		marks := make([]int32, *n/2)
		//cape:parallel for
		for i := 1; i < *n-1; i++ {
			next[i] = (u[i-1] + 2*u[i] + u[i+1]) / 4
			w[i] += int64(next[i] * 1000)
			if i%2 == 0 {
				marks[i/2] = int32(it + i)
			}
		}
		next[0], next[*n-1] = u[0]+1, u[*n-1]
		//cape:parallel for
		for i := range 16 {
			for j := range 16 {
				h[i][j] = (g[i][j] + g[(i+1)%16][j] + g[i][(j+15)%16]) / 3
			}
		}
		g, h = h, g
		if tallies != nil {
			tallies[it%3].steps++
			tallies[it%3].edge += u[1]
		}
		for _, m := range marks {
			seen += int64(m)
		}
		u = next
	}
	s := 0.0
	for _, v := range u {
		s += v
	}
	var ws int64
	for _, v := range w {
		ws += v
	}
	for i := range g {
		for _, v := range g[i] {
			s += v
		}
	}
	fmt.Printf("sum %.10g w %d seen %d tallies %v\n", s, ws, seen, tallies)
}
