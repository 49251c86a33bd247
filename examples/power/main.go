// Command power runs the power iteration on a dense n×n matrix of
// deterministic pseudo-random entries in [0, 1): k times y = A·x (one
// region over the rows, the largest |y_i| found by a max reduction), then
// x = y / max (a second region). It is `cape bench power`'s program.
//
// It prints `power n=N iters=K lambda=L hash=H` on stdout (L the last
// maximum, the dominant eigenvalue's estimate; H an FNV-1a hash of the
// bits of x) and the time of the iterations on stderr. A max reduction is
// exact, so every split of the rows gives the same bits.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/cape-go/cape/bench/workkernel"
)

func main() {
	n := flag.Int("n", 512, "matrix size (n×n)")
	iters := flag.Int("iters", 20, "number of iterations")
	flag.Parse()
	size := max(*n, 1)

	a := make([]float64, size*size)
	for k := range a {
		a[k] = workkernel.Random(k)
	}
	x := make([]float64, size)
	y := make([]float64, size)
	for i := range x {
		x[i] = 1
	}

	var lambda float64
	start := time.Now()
	for it := 0; it < *iters; it++ {
		lambda = 0
		//cape:parallel for schedule(static) reduction(max:lambda)
		for i := 0; i < size; i++ {
			var s float64
			for j := 0; j < size; j++ {
				s += float64(a[i*size+j] * x[j])
			}
			y[i] = s
			lambda = max(lambda, math.Abs(s))
		}
		//cape:parallel for schedule(static)
		for i := 0; i < size; i++ {
			x[i] = y[i] / lambda
		}
	}
	elapsed := time.Since(start)

	fmt.Println(workkernel.PowerLine(x, size, *iters, lambda))
	fmt.Fprintf(os.Stderr, "power: iterations %.6fs\n", elapsed.Seconds())
}
