package main

import "fmt"

func main() {
	sum := 0.0
	x := make([]float64, 8)
	for i := range x {
		x[i] = 1
	}
	//cape:parallel for shared(sum)
	for i := 0; i < 8; i++ {
		sum += x[i]
	}
	fmt.Println(sum)
}
