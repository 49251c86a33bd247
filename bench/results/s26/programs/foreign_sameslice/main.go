package main

import (
	"fmt"

	"example.com/p4/la"
)

func main() {
	n := 8
	a := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		la.Smooth(a, a, i)
	}
	fmt.Println(a)
}
