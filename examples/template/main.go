// Command template is the CAPE paper's benchmark: a dense int64 matrix product
// with the naive triple loop, its outer loop split across the nodes. This
// version is written by hand in CAPE's template form (Start, Create, Stop,
// Exchange); the annotated version is what the translator produces from a
// `//cape:parallel for`.
//
// It prints a checksum of C on stdout and the time of the parallel part on
// stderr. With -seq the product runs sequentially (the reference).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cape-go/cape/cape"
)

func main() {
	n := flag.Int("n", 512, "matrix size (n×n)")
	seq := flag.Bool("seq", false, "compute sequentially, without a parallel region")
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "matmul: -n must be positive")
		os.Exit(2)
	}
	cape.Must(cape.Init())
	defer cape.Finalize()

	size := *n
	a := cape.Make[int64](size * size)
	b := cape.Make[int64](size * size)
	c := cape.Make[int64](size * size)
	fill(a, b)

	start := time.Now()
	if *seq {
		multiply(a, b, c, size, 0, size)
	} else {
		r := cape.Begin("template/main.go:product")
		cape.Must(r.Start())
		// My block of rows; on the master, then the blocks of any slave
		// lost in the region, which it re-executes.
		for lo, hi, more := r.First(size); more; lo, hi, more = r.Next() {
			multiply(a, b, c, size, lo, hi)
		}
		d, err := r.Create()
		cape.Must(err)
		cape.Must(r.Stop())
		cape.Must(r.Exchange(d))
		r.EndLast()
	}
	elapsed := time.Since(start)

	fmt.Printf("matmul n=%d checksum=%016x\n", size, checksum(c))
	fmt.Fprintf(os.Stderr, "matmul: parallel part %.3fs on %d node(s)\n", elapsed.Seconds(), cape.Size())
}

// fill gives A and B deterministic small values, positive and negative.
func fill(a, b []int64) {
	for i := range a {
		a[i] = int64(i*7+3)%101 - 50
		b[i] = int64(i*13+5)%103 - 51
	}
}

// multiply computes rows [lo, hi) of C = A×B.
func multiply(a, b, c []int64, n, lo, hi int) {
	for i := lo; i < hi; i++ {
		for j := 0; j < n; j++ {
			var s int64
			for k := 0; k < n; k++ {
				s += a[i*n+k] * b[k*n+j]
			}
			c[i*n+j] = s
		}
	}
}

// checksum mixes every element of c, in order, into 64 bits.
func checksum(c []int64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range c {
		h ^= uint64(v)
		h *= 1099511628211
	}
	return h
}
