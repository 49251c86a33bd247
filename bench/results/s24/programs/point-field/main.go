package main

import "fmt"

type Sim struct{ T []float64 }

func main() {
	n := 100
	s := &Sim{T: make([]float64, n)}
	u := s.T
	for it := 0; it < 3; it++ {
		//cape:checkpoint it, u
		next := make([]float64, n)
		//cape:parallel for
		for i := 0; i < n; i++ {
			next[i] = u[i] + 1
		}
		u = next
	}
	fmt.Println(u[0])
}
