package main

import (
	"fmt"

	"example.com/C5_uncalled_setter/grid"
)

func main() {
	n := 64
	g := &grid.G{N: n, Cur: make([]float64, n), Next: make([]float64, n)}
	g.Cur[n/2] = 1
	for step := 0; step < 30; step++ {
		//cape:parallel for
		for i := 1; i < g.Size()-1; i++ {
			g.Then()[i] = 0.25*g.Now()[i-1] + 0.5*g.Now()[i] + 0.25*g.Now()[i+1]
		}
		g.Cur, g.Next = g.Next, g.Cur
	}
	// in-place transpose of a square matrix (disjoint swaps)
	m := 9
	t := make([]float64, m*m)
	for k := range t {
		t[k] = float64(k)
	}
	//cape:parallel for schedule(dynamic)
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			t[i*m+j], t[j*m+i] = t[j*m+i], t[i*m+j]
		}
	}
	fmt.Printf("%.12f %.12f %v\n", g.Cur[n/2], g.Cur[n/2+5], t[:m])
}
