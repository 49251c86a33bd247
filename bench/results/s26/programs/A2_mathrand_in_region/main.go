//go:debug randautoseed=0

package main

import (
	"fmt"
	"math/rand"
)

func main() {
	out := make([]int, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		out[i] = rand.Intn(1000)
	}
	fmt.Println(out)
	sum := 0.0
	//cape:parallel for reduction(+:sum)
	for i := 0; i < 1000; i++ {
		sum += float64(rand.Intn(2))
	}
	fmt.Println(sum)
}
