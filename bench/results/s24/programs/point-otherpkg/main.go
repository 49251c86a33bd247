package main

import (
	"fmt"

	"example.com/ext2/kern"
)

func main() {
	n := 256
	u := make([]float64, n)
	next := make([]float64, n)
	for it := 0; it < 50; it++ {
		//cape:checkpoint it, u, next
		//cape:parallel for
		for i := 0; i < n; i++ {
			next[i] = u[i]*0.5 + float64(i%7) + kern.Scale(u[i:i+1], 0.1)
		}
		u, next = next, u
		kern.Account(u)
	}
	fmt.Printf("%.6f %.6f\n", u[3], kern.Energy())
}
