package main

import (
	"fmt"

	"example.com/vr/grid"
)

func main() {
	n := 1000
	a := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		grid.Hist(a, i)
	}
	fmt.Println(a[:4])
}
