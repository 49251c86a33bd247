package main

import (
	"fmt"
	"os"
)

func main() {
	out := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		var x int
		fmt.Fscan(os.Stdin, &x)
		out[i] = x * 10
	}
	fmt.Println(out)
}
