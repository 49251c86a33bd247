// Command fields writes memory reached through struct fields and arrays of
// arrays in parallel regions: fields copied to locals, a struct built with
// new and its fields set afterwards, a struct value holding a slice, a
// struct whose own fields sections write, and rows of a [32][32]float64
// passed to a helper.
package main

import "fmt"

type Vec struct {
	V []float64
}

type Stats struct {
	Min, Max float64
	Count    int
	Seen     []int32
}

type Pair struct {
	A, B *Vec
}

func newVec(n int) *Vec {
	v := new(Vec)
	v.V = make([]float64, n)
	return v
}

func fillRow(row []float64, x float64) {
	for j := range row {
		row[j] = x + float64(j)
	}
}

func (s *Stats) Scan(xs []float64) {
	//cape:parallel sections
	{
		//cape:section
		{
			s.Min = xs[0]
			for _, x := range xs {
				s.Min = min(s.Min, x)
			}
		}
		//cape:section
		{
			s.Max = xs[0]
			for _, x := range xs {
				s.Max = max(s.Max, x)
			}
		}
		//cape:section
		{
			s.Count = len(xs)
			for i := range s.Seen {
				s.Seen[i] = int32(i)
			}
		}
	}
}

func main() {
	const n = 200
	p := Pair{A: newVec(n), B: &Vec{V: make([]float64, n)}}
	out := p.B.V // a field copied to a local
	var grid [32][32]float64
	holder := Vec{V: make([]float64, n)}
	//cape:parallel for
	for i := 0; i < n; i++ {
		p.A.V[i] = float64(i) * 0.5
		out[i] = float64(i * i)
		holder.V[i] = -float64(i)
		if i < len(grid) {
			fillRow(grid[i][:], float64(i))
		}
	}
	s := &Stats{Seen: make([]int32, 7)}
	s.Scan(p.A.V)
	sum := 0.0
	for i := range grid {
		for j := range grid[i] {
			sum += grid[i][j]
		}
	}
	fmt.Println(p.A.V[n-1], p.B.V[n-1], holder.V[3], sum, s.Min, s.Max, s.Count, s.Seen)
}
