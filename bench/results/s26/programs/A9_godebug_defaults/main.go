package main

import (
	"fmt"
	"math/rand"
)

func main() {
	rand.Seed(42)
	n := 8
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(rand.Intn(100))
	}
	y := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		y[i] = x[i] * 2
	}
	fmt.Println(y)
}
