// Command hist counts values into bins in a parallel loop without a
// reduction clause: iterations on two nodes update one bin (the same race
// under OpenMP). Under cape run the job stops with an error naming the
// nodes and the element; with -reduce it uses reduction(+:hist) and prints
// what go run prints.
package main

import (
	"flag"
	"fmt"
)

func main() {
	reduce := flag.Bool("reduce", false, "use a reduction clause")
	flag.Parse()
	n := 1000
	vals := make([]int, n)
	for i := range vals {
		vals[i] = i * 7
	}
	hist := make([]int, 4)
	if *reduce {
		//cape:parallel for reduction(+:hist)
		for i := 0; i < n; i++ {
			v := vals[i]
			hist[v%4]++
		}
	} else {
		//cape:parallel for
		for i := 0; i < n; i++ {
			v := vals[i]
			hist[v%4]++
		}
	}
	fmt.Println(hist)
}
