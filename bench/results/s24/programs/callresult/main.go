// Writes through a call's result: a package variable's slice returned by
// a function, a field's slice returned by a method, a pointer into a
// field, copy into a method's result, and the same in a called function.
// Each names no variable, so the memory is traced through the result.
package main

import "fmt"

var g = make([]float64, 64)

func get() []float64 { return g }

type vec struct{ v, w []float64 }

func (p *vec) data() []float64      { return p.v }
func (p *vec) at(i int) *float64    { return &p.w[i] }
func (p *vec) rows(i int) []float64 { return p.w[i : i+1] }

func fill(i int) { get()[i] += 3 }

func main() {
	x := &vec{v: make([]float64, 64), w: make([]float64, 64)}
	//cape:parallel for
	for i := 0; i < 64; i++ {
		get()[i] = float64(i)
		x.data()[i]++
		*x.at(i) = float64(2 * i)
		fill(i)
	}
	//cape:parallel for
	for i := 0; i < 64; i++ {
		copy(x.rows(i), g[i:i+1])
		x.data()[i] *= 2
	}
	s, t := 0.0, 0.0
	for i := range g {
		s += g[i] * float64(i%5)
		t += x.v[i]*float64(i%3) + x.w[i]
	}
	fmt.Println(s, t)
}
