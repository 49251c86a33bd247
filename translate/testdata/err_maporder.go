package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

// Slices built in a map's range order differ from node to node unless
// sorted before a region uses them: appended to, collected from an
// iterator over the map, or stored at a counter's index.

func main() {
	m := map[string]int{"a": 1, "bb": 2, "ccc": 3}
	var keys, sortedKeys, other, conv, fromIter []string
	for k := range m {
		keys = append(keys, k) // want "keys is built in the order of a range over a map"
		sortedKeys = append(sortedKeys, k)
		other = append(other, k)
		conv = append(conv, k)
	}
	sort.Strings(sortedKeys)
	slices.Sort(other)
	sort.Sort(sort.StringSlice(conv))
	collected := slices.Collect(maps.Keys(m)) // want "collected is built in the order of a range over a map"
	sortedIter := slices.Sorted(maps.Keys(m))
	for k := range maps.Keys(m) {
		fromIter = append(fromIter, k) // want "fromIter is built in the order of a range over a map"
	}
	counted := make([]string, len(m))
	byRank := make([]int, len(m))
	j := 0
	rank := map[string]int{"a": 0, "bb": 1, "ccc": 2}
	for k, v := range m {
		counted[j] = k // want "counted is built in the order of a range over a map"
		j++
		byRank[rank[k]] = v // each entry at its own place: in any order, the same
	}
	var viaYield, viaClosure []string
	maps.Keys(m)(func(k string) bool {
		viaYield = append(viaYield, k) // want "viaYield is built in the order of a range over a map"
		return true
	})
	add := func(k string) {
		viaClosure = append(viaClosure, k) // want "viaClosure is built in the order of a range over a map"
	}
	for k := range m {
		add(k)
	}
	firstKeys := slices.Collect(maps.Keys(m)) // want "firstKeys is built in the order of a range over a map"
	cloned := slices.Clone(firstKeys)         // want "cloned is built in the order of a range over a map"
	copied := make([]string, len(m))
	copy(copied, firstKeys) // want "copied is built in the order of a range over a map"
	sortedCopy := slices.Clone(firstKeys)
	slices.Sort(sortedCopy)
	total := 0
	for _, v := range m {
		total += v // in any order, the same sum
	}
	out := make([]int, len(keys))
	//cape:parallel for
	for i := 0; i < len(keys); i++ {
		out[i] = m[keys[i]] + len(sortedKeys[i]) + len(other[i]) + len(conv[i]) + total + len(collected[i]) + len(sortedIter[i]) + len(fromIter[i]) + len(counted[i]) + byRank[i] + len(viaYield[i]) + len(viaClosure[i]) + len(cloned[i]) + len(copied[i]) + len(sortedCopy[i]) + len(firstKeys[i])
	}
	fmt.Println(out)
}
