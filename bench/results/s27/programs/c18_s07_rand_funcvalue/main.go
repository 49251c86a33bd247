//go:debug randautoseed=0

package main

import (
	"fmt"
	"math/rand"
)

func fill(out []int, draw func(int) int) {
	//cape:parallel for
	for i := 0; i < len(out); i++ {
		out[i] = draw(1000)
	}
}

func main() {
	out := make([]int, 8)
	fill(out, rand.Intn)
	fmt.Println(out)
}
