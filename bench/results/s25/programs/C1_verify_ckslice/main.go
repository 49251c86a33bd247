package main

import "fmt"

func main() {
	hist := make([]int, 4)
	for s := 0; s < 2; s++ {
		//cape:checkpoint s, hist
		//cape:parallel for reduction(+:hist)
		for i := 0; i < 10; i++ {
			hist[i%4]++
		}
	}
	fmt.Println(hist)
}
