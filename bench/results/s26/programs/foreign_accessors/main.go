package main

import (
	"fmt"

	"example.com/p2/la"
)

func main() {
	n := 8
	m := &la.Matrix{R: n, C: 1, Data: make([]float64, n)}
	a := make([]float64, n)
	//cape:parallel for
	for i := 1; i < n; i++ {
		m.Set(i, 0, m.At(i-1, 0)+1)
	}
	fmt.Println(m.Data, a)
}
