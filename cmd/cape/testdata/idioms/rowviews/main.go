// Command rowviews calls, in regions, methods of its module's own matrix
// package that read a row through a view of the matrix's slice
// (m.Row(i)), a value-receiver getter from a pointer method, fields
// promoted from an embedded Shape, a generic vector's setter, and a
// loop bounded by a getter (m.Cols()). Each was refused as a method that
// "may write through the slices that m holds".
package main

import (
	"fmt"

	"github.com/cape-go/cape/cmd/cape/testdata/idioms/rowviews/linalg"
)

func main() {
	n := 24
	m := &linalg.Matrix{Shape: linalg.Shape{R: n, C: n}, Data: make([]float64, n*n)}
	for i := range m.Data {
		m.Data[i] = float64(i%7) - 2
	}
	x := make([]float64, n)
	y := make([]float64, n)
	sums := make([]float64, n)
	for i := range x {
		x[i] = 1 + float64(i%5)
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		m.MulVecRow(x, y, i)
		sums[i] = m.RowSum(i)
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		m.ScaleRow(i, float64(i%3+1))
	}
	//cape:parallel for
	for j := 0; j < m.Cols(); j++ {
		m.Set(0, j, y[j])
	}
	v := &linalg.Vec[float64]{D: make([]float64, n)}
	//cape:parallel for
	for i := 0; i < n; i++ {
		v.Set(i, linalg.Dot(m.Row(i), x)+sums[i])
	}
	s := 0.0
	for _, e := range m.Data {
		s += e
	}
	fmt.Println(y[:6], sums[:6], s, v.Get(0), v.Get(n-1))
}
