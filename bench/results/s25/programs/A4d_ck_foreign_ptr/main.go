package main

import (
	"fmt"

	"forctr/lib"
)

func main() {
	n := 4000
	u := make([]float64, n)
	total := 0.0
	for s := 0; s < 30; s++ {
		//cape:checkpoint s, u, total
		k := lib.G.Draw()
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] = 0.5*u[i] + k
		}
		total += k
	}
	fmt.Println("total", total, u[n-1])
}
