package main

import (
	"fmt"
	"slices"
	"sort"
)

// Slices built in a map's range order differ from node to node unless
// sorted before a region uses them.

func main() {
	m := map[string]int{"a": 1, "bb": 2, "ccc": 3}
	var keys, sortedKeys, other, conv []string
	for k := range m {
		keys = append(keys, k) // want "keys is built in the order of a range over a map"
		sortedKeys = append(sortedKeys, k)
		other = append(other, k)
		conv = append(conv, k)
	}
	sort.Strings(sortedKeys)
	slices.Sort(other)
	sort.Sort(sort.StringSlice(conv))
	total := 0
	for _, v := range m {
		total += v // in any order, the same sum
	}
	out := make([]int, len(keys))
	//cape:parallel for
	for i := 0; i < len(keys); i++ {
		out[i] = m[keys[i]] + len(sortedKeys[i]) + len(other[i]) + len(conv[i]) + total
	}
	fmt.Println(out)
}
