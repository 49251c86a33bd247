package main

import (
	"fmt"
	"os"
)

func main() {
	n := 4000
	u := make([]float64, n)
	total := 0.0
	for s := 0; s < 30; s++ {
		//cape:checkpoint s, u, total
		var force float64
		if _, err := fmt.Fscan(os.Stdin, &force); err != nil {
			fmt.Println("input ended at step", s)
			break
		}
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] = 0.9*u[i] + force*float64(i%7)
		}
		total += force
		fmt.Printf("step %d force %g u[6]=%.6f\n", s, force, u[6])
	}
	fmt.Println("total", total, u[n-1])
}
