// maxloc done in two passes: max reduction, then min index with that value.
package main

import (
	"fmt"
	"math"
)

func main() {
	n := 1000
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Sin(float64(i) * 0.731)
	}
	best := math.Inf(-1)
	//cape:parallel for reduction(max:best)
	for i := 0; i < n; i++ {
		best = max(best, x[i])
	}
	at := n
	//cape:parallel for reduction(min:at)
	for i := 0; i < n; i++ {
		if x[i] == best && i < at {
			at = i
		}
	}
	fmt.Println(best, at)
}
