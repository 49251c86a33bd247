package main

import "fmt"

func counter() func() int {
	c := 0
	return func() int { c += 3; return c }
}

func main() {
	n := 4000
	u := make([]float64, n)
	next := counter()
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
