package main

import "fmt"

type P struct{ X, Y float64 }

func norm(p *P) float64 { return p.X*p.X + p.Y*p.Y }

func main() {
	pts := []P{{1, 2}, {3, 4}, {5, 6}}
	s := 0.0
	for _, p := range pts {
		s += norm(&p)
	}
	out := make([]float64, 3)
	//cape:parallel for
	for i := 0; i < 3; i++ {
		out[i] = pts[i].X * s
	}
	fmt.Println(s, out)
}
