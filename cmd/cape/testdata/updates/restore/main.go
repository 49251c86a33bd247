// Command restore writes places that several iterations may write. By
// default the sequentially last write to an element stores the value it had
// before the loop (0), which the merge, comparing bytes with the region's
// entry, cannot see: under cape run the job stops with an error naming both
// nodes and the element. With -flag, iterations on every node set one flag
// to the same value, and a scatter through a permutation writes each element
// once: it prints what go run prints.
package main

import (
	"flag"
	"fmt"
)

func main() {
	same := flag.Bool("flag", false, "write one value, and a permutation")
	flag.Parse()
	n := 64
	if !*same {
		vals := make([]int, n)
		idx := make([]int, n)
		for i := range vals {
			vals[i] = 5
		}
		vals[n-1] = 0 // the last write restores the entry value
		a := make([]int, 2)
		//cape:parallel for
		for i := 0; i < n; i++ {
			a[idx[i]] = vals[i]
		}
		fmt.Println(a)
		return
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = (i*7 + 3) % n
	}
	out := make([]int, n)
	seen := make([]bool, 1)
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[perm[i]] = i * i
		if i%5 == 0 {
			seen[0] = true
		}
	}
	fmt.Println(out, seen)
}
