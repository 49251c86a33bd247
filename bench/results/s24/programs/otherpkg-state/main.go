package main

import (
	"fmt"

	"example.com/ext/kern"
)

func main() {
	n := 1000
	y := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		y[i] = kern.Accumulate(float64(i))
	}
	t, c := kern.Total()
	fmt.Println(y[n-1], t, c)
}
