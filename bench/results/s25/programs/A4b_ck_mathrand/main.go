package main

import (
	"fmt"
	"math/rand"
)

func main() {
	n := 4000
	u := make([]float64, n)
	total := 0.0
	for s := 0; s < 30; s++ {
		//cape:checkpoint s, u, total
		force := rand.Float64()
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] = 0.9*u[i] + force*float64(i%7)
		}
		total += force
	}
	fmt.Println("total", total, u[n-1])
}
