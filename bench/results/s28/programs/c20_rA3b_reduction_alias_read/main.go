package main

import "fmt"

func main() {
	x := []int{5, 9, 7, 3}
	seen := make([]int, len(x))
	sum := 0
	p := &sum
	//cape:parallel for reduction(+:sum)
	for i := 0; i < len(x); i++ {
		sum += x[i]
		seen[i] = *p
	}
	fmt.Println(sum, seen)
}
