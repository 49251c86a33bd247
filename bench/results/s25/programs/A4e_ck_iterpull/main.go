package main

import (
	"fmt"
	"iter"
)

func fib() iter.Seq[int] {
	return func(yield func(int) bool) {
		a, b := 0, 1
		for {
			if !yield(a) {
				return
			}
			a, b = b, (a+b)%1000
		}
	}
}

func main() {
	n := 4000
	u := make([]float64, n)
	next, stop := iter.Pull(fib())
	defer stop()
	total := 0
	for s := 0; s < 30; s++ {
		//cape:checkpoint s, u, total
		k, _ := next()
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] = 0.5*u[i] + float64(k)
		}
		total += k
	}
	fmt.Println("total", total, u[n-1])
}
