//go:debug randautoseed=0

package main

import (
	"fmt"
	"math/rand"
)

var gen = rand.Float64

func main() {
	out := make([]float64, 8)
	//cape:parallel for
	for i := 0; i < len(out); i++ {
		out[i] = gen()
	}
	fmt.Println(out)
}
