package main

import (
	"fmt"

	"example.com/pkgsolver/solver"
)

func main() {
	n := 3000
	g := solver.NewGrid(n)
	out := make([]float64, n)
	cnt := make([]int, n)
	solver.Scale = 3
	//cape:parallel for schedule(static)
	for i := 0; i < n; i++ {
		solver.Fill(out, i)
		g.Set(i, float64(i)*0.5)
		cnt[i] = solver.Count(i)
	}
	var s float64
	var c int
	for i := 0; i < n; i++ {
		s += out[i] + g.Get(i)
		c += cnt[i]
	}
	fmt.Printf("s=%.6f c=%d calls=%d\n", s, c, solver.Calls)
	fmt.Println(out[:5], g.Vals[n-3:])
}
