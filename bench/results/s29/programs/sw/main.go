package main

import "fmt"

func main() {
	n := 1000
	a := make([]float64, n)
	var w float64
	//cape:parallel for private(w)
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			w = 1
		case 1:
			w = 2.5
		default:
			w = -1
		}
		a[i] = w * float64(i)
	}
	s := 0.0
	for _, v := range a {
		s += v
	}
	fmt.Println(s)
}
