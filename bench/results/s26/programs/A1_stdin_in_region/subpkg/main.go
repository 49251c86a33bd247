package main

import (
	"fmt"

	"example.com/a1c/inp"
)

func main() {
	out := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		out[i] = inp.Next() * 10
	}
	fmt.Println(out)
}
