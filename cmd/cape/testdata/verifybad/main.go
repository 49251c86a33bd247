// Command verifybad has a bug that the translator cannot see: each
// iteration of its parallel loop reads what the previous one wrote, a
// loop-carried dependence through an arena slice, at an index taken from
// another slice (the translator judges only indices that are the loop
// variable plus a constant: x[i-1] would be refused). Run sequentially it
// prints n-1; split across nodes, each node but the first starts from the
// entry value of x[lo-1], and `cape run --verify` reports the difference.
package main

import (
	"flag"
	"fmt"
)

func main() {
	n := flag.Int("n", 1000, "length")
	flag.Parse()
	x := make([]int64, *n)
	prev := make([]int, *n)
	for i := 1; i < *n; i++ {
		prev[i] = i - 1
	}
	//cape:parallel for
	for i := 1; i < *n; i++ {
		x[i] = x[prev[i]] + 1
	}
	fmt.Println(x[*n-1])
}
