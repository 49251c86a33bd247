package main

import (
	"fmt"
	"time"
)

var energy float64

func account(u []float64) {
	for _, v := range u {
		energy += v
	}
}

func main() {
	u := make([]float64, 256)
	for it := 0; it < 30; it++ {
		//cape:checkpoint it, u
		//cape:parallel for
		for i := range u {
			u[i] = u[i]*0.5 + float64(i%5+it)
		}
		account(u)
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Printf("%.6f\n", energy)
}
