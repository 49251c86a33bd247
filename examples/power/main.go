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
)

// random returns a deterministic pseudo-random value in [0, 1) for index k
// (a splitmix64 step), the same on every node and in every baseline.
func random(k int) float64 {
	x := uint64(k)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

func main() {
	n := flag.Int("n", 512, "matrix size (n×n)")
	iters := flag.Int("iters", 20, "number of iterations")
	flag.Parse()
	size := max(*n, 1)

	a := make([]float64, size*size)
	for k := range a {
		a[k] = random(k)
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

	hash := uint64(14695981039346656037)
	for _, v := range x {
		hash ^= math.Float64bits(v)
		hash *= 1099511628211
	}
	fmt.Printf("power n=%d iters=%d lambda=%.12e hash=%016x\n", size, *iters, lambda, hash)
	fmt.Fprintf(os.Stderr, "power: iterations %.6fs\n", elapsed.Seconds())
}
