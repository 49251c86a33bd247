// Command reduction computes the sum and the maximum of a pseudo-random
// series, in int64 and in float64, with OpenMP-style reduction clauses.
//
// Without CAPE it runs sequentially (go run ./examples/reduction); with
// CAPE (cape run -n 4 ./examples/reduction) the loops are split across the
// nodes and each node's partial sums and maxima are combined on the master.
// The float64 terms are multiples of 1/4 below 2^40, so their sums are exact
// and the output is the same for every number of nodes.
package main

import (
	"flag"
	"fmt"
	"math"
)

// term is the i-th element of the series: a deterministic hash of i.
func term(i int) int64 {
	x := uint64(i)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	return int64(x % 1_000_003)
}

func main() {
	n := flag.Int("n", 1_000_000, "number of terms")
	flag.Parse()

	xs := make([]int64, *n)
	//cape:parallel for schedule(static)
	for i := range xs {
		xs[i] = term(i)
	}

	var isum int64
	imax := int64(math.MinInt64)
	var fsum float64
	fmax := math.Inf(-1)
	//cape:parallel for reduction(+:isum, fsum) reduction(max:imax, fmax)
	for i := 0; i < *n; i++ {
		v := xs[i]
		isum += v
		imax = max(imax, v)
		f := float64(v) / 4
		fsum += f
		fmax = max(fmax, f)
	}

	var smallest int64 = math.MaxInt64
	//cape:parallel for schedule(dynamic, 4096) reduction(min:smallest)
	for i := *n - 1; i >= 0; i-- {
		smallest = min(smallest, xs[i])
	}

	fmt.Printf("n=%d int64: sum=%d max=%d min=%d\n", *n, isum, imax, smallest)
	fmt.Printf("n=%d float64: sum=%.2f max=%.2f\n", *n, fsum, fmax)
}
