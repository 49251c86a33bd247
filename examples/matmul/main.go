// Command matmul is the CAPE paper's benchmark: a dense int64 matrix product
// with the naive triple loop, its outer loop annotated for CAPE.
//
// Plain `go run` runs it sequentially; `cape run -n 4 ./examples/matmul`
// splits the rows of C across 4 nodes. It prints a checksum of C on stdout
// and the time of the product on stderr. With -seq the product runs without
// the directive (the sequential reference, even under cape).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	n := flag.Int("n", 512, "matrix size (n×n)")
	seq := flag.Bool("seq", false, "compute sequentially, without the parallel region")
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "matmul: -n must be positive")
		os.Exit(2)
	}
	size := *n
	a := make([]int64, size*size)
	b := make([]int64, size*size)
	c := make([]int64, size*size)
	for i := range a {
		a[i] = int64(i*7+3)%101 - 50
		b[i] = int64(i*13+5)%103 - 51
	}

	start := time.Now()
	if *seq {
		multiply(a, b, c, size)
	} else {
		//cape:parallel for schedule(static)
		for i := 0; i < size; i++ {
			for j := 0; j < size; j++ {
				var s int64
				for k := 0; k < size; k++ {
					s += a[i*size+k] * b[k*size+j]
				}
				c[i*size+j] = s
			}
		}
	}
	elapsed := time.Since(start)

	fmt.Printf("matmul n=%d checksum=%016x\n", size, checksum(c))
	fmt.Fprintf(os.Stderr, "matmul: parallel part %.3fs\n", elapsed.Seconds())
}

// multiply is the same product without a directive.
func multiply(a, b, c []int64, n int) {
	for i := 0; i < n; i++ {
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
