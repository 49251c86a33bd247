package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	price := map[string]int{}
	for i := 0; i < 40; i++ {
		price[fmt.Sprintf("item%02d", i)] = i * i
	}
	keys := slices.Collect(maps.Keys(price)) // unsorted: order differs per process
	vals := make([]int, len(keys))
	//cape:parallel for
	for i := 0; i < len(keys); i++ {
		vals[i] = price[keys[i]] * 3
	}
	total := 0
	for _, v := range vals {
		total += v
	}
	fmt.Println(total) // independent of the order under go run
}
