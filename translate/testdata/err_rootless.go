package main

import "fmt"

var g = make([]float64, 16)

func get() []float64 { return g }

type vec struct{ v []float64 }

func (p *vec) data() []float64 { return p.v }
func (p *vec) self() *vec      { return p }
func (p *vec) set(i int)       { p.v[i] = 1 }

var cells = map[int][]int{}

func table() map[int][]int { return cells }

func fill(i int) {
	get()[i] = 3 // want "get\\(\\)\\[i\\] in the parallel region \\(called from the parallel region at err_rootless.go:25\\) writes through the result of get\\(\\)"
}

func main() {
	w := &vec{v: make([]float64, 16)}
	//cape:parallel for
	for i := 0; i < 16; i++ {
		get()[i] = float64(i)        // want "get\\(\\)\\[i\\] in the parallel region writes through the result of get\\(\\)"
		w.data()[i]++                // want "w.data\\(\\)\\[i\\] in the parallel region writes through the result of w.data\\(\\)"
		copy(w.data()[i:i+1], g[i:]) // want "w.data\\(\\)\\[i:i\\+1\\] in the parallel region writes through the result of w.data\\(\\)"
		w.self().set(i)
		table()[i] = nil // want "table\\(\\)\\[i\\] in the parallel region writes through the result of table\\(\\)"
		fill(i)
	}
	fmt.Println(g[3], w.v[3])
}
