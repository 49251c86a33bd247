package main

import "fmt"

type bins [4]float32

func main() {
	n := 100
	var hist [8]int64
	counts := make([]int32, 3)
	var lo bins
	for i := range lo {
		lo[i] = 1e9
	}
	hist[0] = 5
	//cape:parallel for reduction(+:hist, counts) reduction(min:lo)
	for i := 0; i < n; i++ {
		hist[i%8]++
		counts[i%3] += int32(i)
		lo[i%4] = min(lo[i%4], float32(i))
	}
	fmt.Println(hist, counts, lo)
}
