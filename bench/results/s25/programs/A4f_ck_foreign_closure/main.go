package main

import (
	"fmt"

	"forclo/lib"
)

func main() {
	n := 4000
	u := make([]float64, n)
	next := lib.Counter(3)
	total := 0
	for s := 0; s < 30; s++ {
		//cape:checkpoint s, u, total
		k := next()
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] = 0.5*u[i] + float64(k)
		}
		total += k
	}
	fmt.Println("total", total, u[n-1])
}
