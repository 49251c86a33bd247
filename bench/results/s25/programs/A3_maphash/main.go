package main

import (
	"fmt"
	"hash/maphash"
)

func main() {
	words := []string{}
	for i := 0; i < 200; i++ {
		words = append(words, fmt.Sprintf("w%d", i*7919%1000))
	}
	seed := maphash.MakeSeed()
	nb := 8
	bucket := make([]int, len(words))
	for i, w := range words {
		bucket[i] = int(maphash.String(seed, w) % uint64(nb))
	}
	lens := make([]int, nb)
	//cape:parallel for
	for b := 0; b < nb; b++ {
		for i := range words {
			if bucket[i] == b {
				lens[b] += len(words[i])
			}
		}
	}
	t := 0
	for _, l := range lens {
		t += l
	}
	fmt.Println(t)
}
