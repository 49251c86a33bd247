package main

import (
	"flag"
	"fmt"
)

// particles holds positions and velocities in rows of Dim numbers.
type particles struct {
	Pos, Vel []float64
	Dim      int
}

// A drift step over many particles: three writes per particle, each a
// few operations, so a mark per write shows. The row's multiplier is a
// field the translator cannot prove non-zero.
func main() {
	n := flag.Int("n", 1<<20, "particles")
	steps := flag.Int("steps", 20, "steps")
	flag.Parse()
	p := &particles{Pos: make([]float64, 3**n), Vel: make([]float64, 3**n), Dim: 3}
	for i := range p.Vel {
		p.Vel[i] = float64(i%17) * 0.01
	}
	dt := 0.5
	for s := 0; s < *steps; s++ {
		//cape:parallel for
		for i := 0; i < *n; i++ {
			for d := 0; d < 3; d++ {
				p.Pos[i*p.Dim+d] += dt * p.Vel[i*p.Dim+d]
			}
		}
	}
	sum := 0.0
	for _, v := range p.Pos {
		sum += v
	}
	fmt.Printf("%.3f\n", sum)
}
