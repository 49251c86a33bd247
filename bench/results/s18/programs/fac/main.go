package main

import "fmt"

func main() {
	n := 100
	hits := 0
	out := make([]int, n)
	mk := func(k int) func(int) int {
		return func(x int) int { hits++; return x * k }
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[i] = mk(3)(i)
	}
	fmt.Println(out[n-1], hits)
}
