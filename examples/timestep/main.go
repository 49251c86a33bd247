// Command timestep relaxes a 1-D array for many time steps, allocating the
// next state every step and dropping the old one: the idiom whose memory
// CAPE must reclaim (the arena is not garbage collected). The translator
// frees the old state before u = next on every node, so the job runs in
// the memory it holds live.
package main

import (
	"flag"
	"fmt"
)

// relax writes one relaxation step of src into dst.
func relax(dst, src []float64) {
	//cape:parallel for
	for i := 1; i < len(dst)-1; i++ {
		dst[i] = (src[i-1] + src[i] + src[i+1]) / 3
	}
}

func main() {
	n := flag.Int("n", 1<<16, "points")
	steps := flag.Int("steps", 50, "time steps")
	flag.Parse()
	u := make([]float64, *n)
	u[*n/2] = 1e6
	for s := 0; s < *steps; s++ {
		next := make([]float64, *n)
		relax(next, u)
		u = next
	}
	var sum, weighted float64
	for i, v := range u {
		sum += v
		weighted += v * float64(i%97)
	}
	fmt.Printf("n=%d steps=%d sum=%.6e weighted=%.9e mid=%.9e\n", *n, *steps, sum, weighted, u[*n/2])
}
