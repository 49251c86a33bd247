package main

import (
	"fmt"
	"sort"
)

func main() {
	a := make([]float64, 24)
	for i := range a {
		a[i] = float64((i * 7) % 5)
	}
	// sort each row of a 6x4 matrix
	//cape:parallel for
	for i := 0; i < 6; i++ {
		sort.Float64Slice(a[i*4 : (i+1)*4]).Sort()
	}
	fmt.Println(a)
}
