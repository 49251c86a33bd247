package main

import "fmt"

func main() {
	np := 400000
	pos := make([]float64, 3*np)
	vel := make([]float64, 3*np)
	for k := range vel {
		vel[k] = float64(k%17) * 0.1
	}
	dt := 0.01
	for step := 0; step < 20; step++ {
		//cape:parallel for
		for p := 0; p < 3*np; p += 3 {
			for d := 0; d < 3; d++ {
				pos[p+d] += dt * vel[p+d]
			}
		}
	}
	s := 0.0
	for _, x := range pos {
		s += x
	}
	fmt.Printf("%.6f\n", s)
}
