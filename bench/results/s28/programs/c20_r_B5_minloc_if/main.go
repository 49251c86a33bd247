package main

import "fmt"

func main() {
	x := []int{5, 9, 2, 9, 1, 9}
	best := 9
	at := len(x)
	//cape:parallel for reduction(min:at)
	for i := 0; i < len(x); i++ {
		if x[i] == best && i < at {
			at = i
		}
	}
	fmt.Println(at)
}
