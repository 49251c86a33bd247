package main

import "fmt"

func main() {
	x := []float64{1, 2, 9, 4}
	out := make([]float64, 4)
	var t float64
	//cape:parallel for private(t)
	for i := 0; i < 4; i++ {
		if x[i] > 0 {
			if x[i] > 5 {
				goto store
			}
			t = x[i]
		store:
			out[i] = t
		}
	}
	fmt.Println(out)
}
