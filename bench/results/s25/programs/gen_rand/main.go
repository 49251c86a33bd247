package main

import (
	"fmt"

	"example.com/gen_rand/gen"
)

func main() {
	n := 8
	data := make([]float64, n)
	gen.Fill(data)
	out := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[i] = 2 * data[i]
	}
	ok := 0
	for i := range out {
		if out[i] == 2*data[i] {
			ok++
		}
	}
	fmt.Println("consistent:", ok, "of", n)
}
