package main

import "fmt"

type Matrix struct {
	R, C int
	Data []float64
}

func (m *Matrix) Row(i int) []float64     { return m.Data[i*m.C : (i+1)*m.C] }
func (m *Matrix) Set(i, j int, v float64) { m.Data[i*m.C+j] = v }

func main() {
	n := 8
	m := &Matrix{R: n, C: n, Data: make([]float64, n*n)}
	for k := range m.Data {
		m.Data[k] = float64(k % 7)
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		prev := m.Row(i - 1)
		for j := 0; j < n; j++ {
			m.Set(i, j, prev[j]+1)
		}
	}
	s := 0.0
	for _, v := range m.Data {
		s += v
	}
	fmt.Println(s)
}
