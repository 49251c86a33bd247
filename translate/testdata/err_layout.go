package main

import (
	"encoding/json"
	"fmt"
)

type Counter struct {
	Hits [4]int64
	Seen []bool
}

type counter interface{ Count(n int) }

// Count writes the counter's own array in a region: its receiver, called
// directly or through an interface, is traced to &Counter{...}.
func (c *Counter) Count(n int) {
	//cape:parallel for
	for i := 0; i < 4; i++ {
		c.Hits[i] += int64(n)
	}
}

type Table struct {
	Cols [][]float64
}

func main() {
	n := 8
	words := make([]string, n)
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = append([]float64(nil), 1, 2) // want "an element of type \\[\\]float64 \\(as in rows\\) is written through in the parallel region at err_layout.go:42, but its memory comes from append"
	}
	fresh := make([][]float64, n)
	t := &Table{Cols: make([][]float64, 2)}
	t.Cols[0] = make([]float64, n)
	p := &t.Cols[1] // want "rows is written through in the parallel region at err_layout.go:42, but an element of type \\[\\]float64 may be set through a pointer to it taken here"
	//cape:parallel for
	for i := 0; i < n; i++ {
		words[i] = "w" // want "words is written in the parallel region, but its memory \\(made at err_layout.go:30\\) holds strings"
		rows[i][0] = 1
		fresh[i] = make([]float64, 2) // want "an element of type \\[\\]float64 \\(as in rows\\) is written through in the parallel region at err_layout.go:42 and is stored in shared memory, but it is made inside a parallel region"
		fresh[i][1] = 1
		for j := range t.Cols {
			t.Cols[j][i] = 1
		}
	}
	c := &Counter{Seen: make([]bool, 4)}
	c.Count(n)
	var x counter = c
	x.Count(1)
	fmt.Println(words, rows, fresh, *p, c.Hits)
}

type Config struct {
	Weights []float64
}

func load(b []byte) {
	var cfg Config
	json.Unmarshal(b, &cfg) // want "cfg.Weights is written through in the parallel region at err_layout.go:65, but field Weights may be set here by json.Unmarshal"
	//cape:parallel for
	for i := range cfg.Weights {
		cfg.Weights[i] *= 2
	}
	fmt.Println(cfg)
}

type Tally struct{ N [2]int }

func (t *Tally) Add() {
	//cape:parallel sections
	{
		//cape:section
		{
			t.N[0]++
		}
		//cape:section
		{
			t.N[1]++
		}
	}
}

func useTally() {
	var t Tally
	(*Tally).Add(&t)
	fmt.Println(t)
}

func privateRef() {
	heap := [][]float64{{1}, {2}} // want "\\(as in rows\\) is written through .* composite literal" "\\(as in rows\\) is written through .* composite literal"
	var row []float64
	//cape:parallel for private(row)
	for i := 0; i < 2; i++ {
		row = heap[i]
		row[0] = 3
	}
	fmt.Println(heap)
}

// headers writes the row headers of a matrix built by append: its outer
// slice must be in the arena then.
func headers() {
	var a [][]float64
	for i := 0; i < 4; i++ {
		a = append(a, make([]float64, 4)) // want "a is written through in the parallel region at err_layout.go:112, but its memory comes from append"
	}
	//cape:parallel for
	for i := 0; i < 4; i++ {
		a[i] = a[i][:2]
	}
	fmt.Println(a)
}
