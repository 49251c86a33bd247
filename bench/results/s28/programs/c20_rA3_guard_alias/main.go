package main

import "fmt"

func main() {
	x := []int{5, 9, 12, 3}
	best := 0
	cur := &best
	//cape:parallel for reduction(max:best)
	for i := 0; i < len(x); i++ {
		if *cur < 6 && x[i] > best {
			best = x[i]
		}
	}
	fmt.Println(best)
}
