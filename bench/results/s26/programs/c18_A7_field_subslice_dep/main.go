package main

import "fmt"

type G struct {
	V []float64
}

func main() {
	n := 12
	g := &G{V: make([]float64, n)}
	for i := range g.V {
		g.V[i] = float64(i + 1)
	}
	w := g.V[1:]
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		w[i] = g.V[i] * 2
	}
	fmt.Println(g.V)
}
