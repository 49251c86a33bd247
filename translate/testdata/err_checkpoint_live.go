package main

import (
	"fmt"
	"math/rand"
)

// A point that leaves out state its loop carries from one pass to the next
// is refused: a restart from an image taken at a later pass would resume
// with the first pass's values.
func main() {
	n := 64
	u := make([]float64, n)
	energy := 0.0
	count := 0
	rng := rand.New(rand.NewSource(1))
	var hist []float64
	var diff float64
	for it := 0; it < 10; it++ {
		//cape:checkpoint it, u, hist // want "energy is live here and the loop at .* changes it" "count is live here" "rng \\(\\*math/rand.Rand\\) is used in the loop" "hist \\(\\[\\]float64\\) cannot be saved: it grows by append"
		diff = 0
		off := rng.Intn(10)
		var s float64
		//cape:parallel for reduction(+:s) reduction(max:diff)
		for i := 0; i < n; i++ {
			u[i] = u[i]*0.5 + float64(i%8+off)
			s += u[i]
			diff = max(diff, u[i])
		}
		energy += s
		count++
		hist = append(hist, s)
	}
	fmt.Println(energy, count, len(hist), diff, n)
}

// total is a package variable the loop below changes.
func steps() {
	for s := 0; s < 4; s++ {
		//cape:checkpoint s // want "total is live here and the loop at .* changes it"
		total += float64(s)
		w := make([]float64, 8)
		//cape:parallel for
		for i := range w {
			w[i] = total
		}
	}
}

var total float64
