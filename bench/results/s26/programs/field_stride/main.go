package main

import "fmt"

type Matrix struct {
	R, C int
	Data []float64
}

func main() {
	n := 8
	m := &Matrix{R: n, C: 1, Data: make([]float64, n)}
	//cape:parallel for
	for i := 1; i < n; i++ {
		m.Data[i*m.C] = m.Data[(i-1)*m.C] + 1
	}
	fmt.Println(m.Data)
}
