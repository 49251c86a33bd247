package main

import "fmt"

const m = 4

func sum(a []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k]
	}
	return s
}

func main() {
	n := 100
	x := make([]float64, n*m)
	s := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		row := x[i*m : (i+1)*m]
		for j := range row {
			row[j] = float64(i + j)
		}
		s[i] = sum(row)
		s[i] += sum(x[i*m : i*m+m])
	}
	fmt.Println(s[7], s[99])
}
