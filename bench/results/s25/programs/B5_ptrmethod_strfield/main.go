package main

import "fmt"

type Sim struct {
	Name string
	N    int
	U    []float64
}

func (s *Sim) idx(i int) int { return i % s.N }

func main() {
	s := &Sim{Name: "run1", N: 16, U: make([]float64, 16)}
	//cape:parallel for
	for i := 0; i < len(s.U); i++ {
		s.U[s.idx(i)] = float64(i) * 0.5
	}
	fmt.Println(s.Name, s.U)
}
