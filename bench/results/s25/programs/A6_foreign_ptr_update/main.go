package main

import (
	"fmt"

	"ptrupd/lib"
)

func main() {
	n := 12
	out := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		lib.Add(&out[i%3], 1)
	}
	fmt.Println(out)
}
