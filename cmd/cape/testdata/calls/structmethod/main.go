// Command structmethod writes the slice field of a struct through a
// pointer-receiver method called in a parallel loop; the slice is made in
// main.
package main

import "fmt"

type grid struct {
	n    int
	data []float64
}

func (g *grid) fill(i int) {
	for j := 0; j < g.n; j++ {
		g.data[i*g.n+j] = float64(i + j)
	}
}

func main() {
	n := 9
	g := &grid{n: n, data: make([]float64, n*n)}
	//cape:parallel for
	for i := 0; i < n; i++ {
		g.fill(i)
	}
	s := 0.0
	for _, v := range g.data {
		s += v
	}
	fmt.Println(s)
}
