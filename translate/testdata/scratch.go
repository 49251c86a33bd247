package main

import "fmt"

// Scratch space made before a region and reused by every iteration: a
// warning, with the fix; an update of one element (a histogram) is the
// merge's to check, without the warning.

func main() {
	n := 8
	out := make([]float64, n)
	work := make([]float64, 4)
	hist := make([]int, 4)
	//cape:parallel for
	for i := 0; i < n; i++ {
		for k := 0; k < 4; k++ {
			work[k] = float64(i * k) // warn "every iteration of the parallel loop writes work\\[k\\] at the same places, and reads work: if work is scratch space .* make it in the loop's body \\(work := make\\(...\\)\\)"
		}
		s := 0.0
		for k := 0; k < 4; k++ {
			s += work[k]
		}
		out[i] = s
		hist[i%4]++
	}
	fmt.Println(out, hist)
}
