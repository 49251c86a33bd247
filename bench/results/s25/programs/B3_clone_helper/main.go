package main

import (
	"fmt"
	"slices"
	"sort"
)

func top1(xs []float64) float64 {
	c := slices.Clone(xs)
	sort.Float64s(c)
	return c[len(c)-1]
}

func main() {
	rows, cols := 6, 5
	data := make([]float64, rows*cols)
	for i := range data {
		data[i] = float64((i * 37) % 11)
	}
	top := make([]float64, rows)
	//cape:parallel for
	for r := 0; r < rows; r++ {
		top[r] = top1(data[r*cols : (r+1)*cols])
	}
	fmt.Println(top)
}
