package main

import "fmt"

func main() {
	mk := func(n int) []float64 { return make([]float64, n) }
	u := mk(6)
	v := mk(6)
	for s := 0; s < 3; s++ {
		//cape:parallel for
		for i := 0; i < len(u); i++ {
			u[i] += float64(i*s) + v[i]
		}
	}
	fmt.Println(u)
}
