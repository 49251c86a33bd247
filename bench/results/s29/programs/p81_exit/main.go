package main

import (
	"fmt"
	"log"
	"os"
)

func check(i int, v float64) {
	if v > 50 {
		log.Fatalf("item %d: value %.1f too large", i, v)
	}
}

func main() {
	n := 20
	out := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[i] = float64(i * i)
		fmt.Println("item", i)
		if len(os.Args) > 1 {
			check(i, out[i])
		}
		if i == 13 && len(os.Args) == 1 {
			os.Exit(0)
		}
	}
	fmt.Println(out)
}
