package main

import (
	"fmt"
	"sort"
)

type Mat[T any] struct {
	Rows [][]T
}

type Cell struct {
	V    []float64
	Next *Cell
}

type Sim struct {
	Cell
	Name string
}

func main() {
	m := &Mat[float64]{Rows: make([][]float64, 4)}
	for i := range m.Rows {
		m.Rows[i] = make([]float64, 4)
	}
	cells := make([]Cell, 4)
	for i := range cells {
		cells[i].V = make([]float64, 3)
	}
	s := &Sim{Cell: Cell{V: make([]float64, 4)}, Name: "x"}
	keys := []int{3, 1, 2}
	sort.Ints(keys)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		m.Rows[i][i] = 1
		cells[i].V[0] = float64(i)
		s.V[i] = 2
	}
	fmt.Println(m.Rows, cells, s.V)
}
