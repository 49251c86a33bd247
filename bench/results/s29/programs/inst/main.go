package main

import "fmt"

func fill[T ~int | ~float64](a []T, k T) {
	//cape:parallel for
	for i := 0; i < len(a); i++ {
		a[i] = T(i) * k
	}
}

func main() {
	a := make([]float64, 10)
	fill[float64](a, 0.5)
	fmt.Println(a)
}
