// Command keys builds a list from a map in another package's code, then
// has a region compute over it: each node would hold the list in its own
// order.
package main

import (
	"fmt"

	"example.com/keys/tab"
)

func main() {
	m := map[string]float64{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8}
	names := tab.Names(m)
	out := make([]float64, len(names))
	//cape:parallel for
	for i := range names {
		out[i] = m[names[i]]
	}
	sum := 0.0
	seen := map[float64]bool{}
	for _, v := range out {
		sum += v
		seen[v] = true
	}
	fmt.Println(sum, len(seen))
}
