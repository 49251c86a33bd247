package main

import "fmt"

func main() {
	m := map[string]int{}
	for i := 0; i < 50; i++ {
		m[fmt.Sprint("k", i)] = i * i
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	out := make([]int, len(keys))
	//cape:parallel for
	for i := 0; i < len(keys); i++ {
		out[i] = m[keys[i]] + len(keys[i])
	}
	bad := 0
	for i := range out {
		if out[i] != m[keys[i]]+len(keys[i]) {
			bad++
		}
	}
	fmt.Println("mismatches:", bad)
}
