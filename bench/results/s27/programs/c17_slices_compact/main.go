package main

import (
	"fmt"
	"slices"
)

func main() {
	s := make([]int, 16)
	for i := 0; i < 16; i++ {
		s[i] = i / 2
	}
	s = slices.Compact(s)
	s = slices.Delete(s, 0, 1)
	//cape:parallel for
	for i := 0; i < len(s); i++ {
		s[i] = s[i] * s[i]
	}
	fmt.Println(s)
}
