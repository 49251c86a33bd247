package main

import "fmt"

type State struct {
	T, P []float64
}

func (s *State) Heat()     { s.T[0] = 300 }
func (s *State) Pressure() { s.P[0] = s.T[0] * 0.5 }

func main() {
	s := &State{T: make([]float64, 2), P: make([]float64, 2)}
	//cape:parallel sections
	{
		//cape:section
		{
			s.Heat()
		}
		//cape:section
		{
			s.Pressure()
		}
	}
	fmt.Println(s.T, s.P)
}
