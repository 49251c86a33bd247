package main

import "fmt"

type Vec []float64

func (v *Vec) Resize(n int) { *v = make(Vec, n) }

type Sim struct{ X Vec }

func main() {
	var s Sim
	s.X.Resize(6)
	//cape:parallel for
	for i := 0; i < len(s.X); i++ {
		s.X[i] = float64(i) / 4
	}
	fmt.Println(s.X)
}
