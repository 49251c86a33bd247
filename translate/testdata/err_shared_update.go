package main

import "fmt"

// A variable listed in shared is one every iteration (or section) stores
// the same value in: an update of it would be counted once per node.

func main() {
	count, sum := 0, 0.0
	x := make([]float64, 8)
	//cape:parallel for shared(count, sum)
	for i := 0; i < 8; i++ {
		count++          // want "count is listed in shared, but updated here: each node would update its own copy .* use reduction\\(\\+:count\\)"
		sum = sum * x[i] // want "sum is listed in shared, but updated here: .* use reduction\\(\\*:sum\\)"
	}
	n := 0
	//cape:parallel sections shared(n)
	{
		//cape:section
		{
			n += 2 // want "n is listed in shared, but updated here"
		}
		//cape:section
		{
			x[0] = 1
		}
	}
	fmt.Println(count, sum, n, x)
}
