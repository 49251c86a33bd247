package main

import "fmt"

type Matrix struct {
	R, C int
	Data []float64
}

func (m *Matrix) At(i, j int) float64     { return m.Data[i*m.C+j] }
func (m *Matrix) Set(i, j int, v float64) { m.Data[i*m.C+j] = v }

func get(a []float64, i int) float64 { return a[i] }

func main() {
	n := 8
	m := &Matrix{R: n, C: 1, Data: make([]float64, n)}
	//cape:parallel for
	for i := 1; i < n; i++ {
		m.Set(i, 0, m.At(i-1, 0)+1)
	}
	a := make([]float64, n)
	//cape:parallel for
	for i := 1; i < n; i++ {
		a[i] = get(a, i-1) + 1
	}
	fmt.Println(m.Data, a)
}
