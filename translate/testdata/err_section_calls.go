package main

import "fmt"

// Sections that depend on each other through the functions they call: one
// writes through its parameter or receiver what a later one reads.

type state struct {
	t, p []float64
}

func (s *state) heat()     { s.t[0] = 300 }
func (s *state) pressure() { s.p[0] = s.t[0] * 0.5 }
func (s *state) volume()   { s.p[1] = 2 }

func heat(t []float64)        { t[0] = 300 }
func pressure(p, t []float64) { p[0] = t[0] * 0.5 }

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func main() {
	T := make([]float64, 2)
	P := make([]float64, 2)
	//cape:parallel sections
	{
		//cape:section
		{
			heat(T) // want "T is written in section 0 \\(or may be, through a pointer or a call\\) and used in section 1"
		}
		//cape:section
		{
			pressure(P, T)
		}
	}
	s := &state{t: make([]float64, 2), p: make([]float64, 2)}
	//cape:parallel sections
	{
		//cape:section
		{
			s.heat() // want "s.t is written in section 0 .* and used in section 1"
		}
		//cape:section
		{
			s.pressure()
		}
	}
	// Fields the sections do not share: independent.
	//cape:parallel sections
	{
		//cape:section
		{
			s.heat()
		}
		//cape:section
		{
			s.volume()
		}
	}
	// Each section sorts its own quarter, one through a view of it.
	data := make([]int, 8)
	//cape:parallel sections
	{
		//cape:section
		{
			sortInts(data[:4])
		}
		//cape:section
		{
			part := data[4:]
			for i := 1; i < len(part); i++ {
				for j := i; j > 0 && part[j] < part[j-1]; j-- {
					part[j], part[j-1] = part[j-1], part[j]
				}
			}
		}
	}
	fmt.Println(T, P, s.t, s.p, data)
}
