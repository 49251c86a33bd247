package main

import "fmt"

func main() {
	n := 100
	a := make([]float64, n)
	var t float64
	//cape:parallel for private(t)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			t = float64(i) * 0.5
			a[i] = t
		}
	}
	fmt.Println(a[98])
}
