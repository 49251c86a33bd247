package main

import (
	"fmt"

	"slicemeth/vec"
)

func main() {
	n, nb := 16, 4
	bs := n / nb
	x := make(vec.Vector, n)
	y := make(vec.Vector, n)
	for i := range x {
		x[i] = float64(i)
	}
	//cape:parallel for
	for b := 0; b < nb; b++ {
		y[b*bs:(b+1)*bs].Axpy(2, x[b*bs:(b+1)*bs])
	}
	fmt.Println(y)
}
