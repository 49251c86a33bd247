package main

import "fmt"

type Vec []float64

func (v *Vec) Resize(n int) { *v = make(Vec, n) }

type Sim struct {
	Vec
	T float64
}

func main() {
	var s Sim
	s.Resize(6)
	//cape:parallel for
	for i := 0; i < len(s.Vec); i++ {
		s.Vec[i] = float64(i) + 0.5
	}
	fmt.Println(s.Vec)
}
