// Command reducearray builds histograms with reductions over an array and
// a slice, and finds per-bin minima with a min reduction over an array.
package main

import "fmt"

func main() {
	const n = 100000
	var hist [16]int64
	hist[3] = 1000 // the entry value is added to the nodes' partials
	sums := make([]float64, 5)
	var lo [4]int32
	for i := range lo {
		lo[i] = 1 << 30
	}
	//cape:parallel for reduction(+:hist, sums) reduction(min:lo)
	for i := 0; i < n; i++ {
		x := (i*7919 + 13) % 1009
		hist[x%16]++
		sums[i%5] += float64(x) / 8
		lo[i%4] = min(lo[i%4], int32(x+i%97))
	}
	fmt.Println(hist, sums, lo)
}
