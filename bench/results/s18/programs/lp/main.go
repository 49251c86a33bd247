package main

import "fmt"

func main() {
	n := 1000
	flags := make([]bool, n)
	last := -1
	//cape:parallel for lastprivate(last)
	for i := 0; i < n; i++ {
		if i%7 == 3 && i < 2*n/3 {
			flags[i] = true
			last = i
		}
	}
	fmt.Println(last, flags[3])
}
