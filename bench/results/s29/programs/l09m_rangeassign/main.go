package main

import "fmt"

func main() {
	vals := []int{3, 1, 4, 1, 5, 9, 2, 6}
	x := -1
	sums := make([]int, 8)
	//cape:parallel for lastprivate(x)
	for i := 0; i < 8; i++ {
		for _, x = range vals[:i%3+1] {
			sums[i] += x
		}
	}
	fmt.Println(x, sums)
}
