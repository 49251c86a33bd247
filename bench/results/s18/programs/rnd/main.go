package main

import (
	"fmt"
	"math/rand"
)

func main() {
	n := 200
	a := make([]int, n)
	for i := range a {
		a[i] = rand.Intn(1000)
	}
	b := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		b[i] = a[i] * 2
	}
	bad := 0
	for i := range a {
		if b[i] != a[i]*2 {
			bad++
		}
	}
	fmt.Println("bad:", bad)
}
