package main

import "fmt"

var cells = map[int][]int{} // want "cells is written through in the parallel region at err_rootless.go:20, but its memory comes from a composite literal here"

func table() map[int][]int { return cells }

var g = make([]float64, 16)

func get() []float64 { return g }

func fill(i int) { get()[i] = 3 }

func main() {
	//cape:parallel for
	for i := 0; i < 16; i++ {
		get()[i] = float64(i)
		fill(i)
		table()[i] = nil
	}
	fmt.Println(g[3], len(cells))
}
