// Command shuffle is a test program: a seeded sequence of parallel regions
// that write shared arrays of four element sizes at scattered, strided
// places (each iteration one element, a permutation of the array), reading
// the other arrays anywhere, under each schedule. Pages are then written by
// one node or by several, read by nodes that did not write them, and
// rewritten by other nodes than before, in an order the seed chooses. It
// prints, per region, its integer reductions, and at the end a hash of
// every array: the same under go run and any cape run.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
)

// sizes are the arrays' lengths: primes, so that every stride below one is
// a permutation.
var sizes = []int{4099, 5003, 6007, 7001}

func main() {
	seed := flag.Uint64("seed", 1, "the seed of the sequence of regions")
	regions := flag.Int("regions", 40, "number of regions")
	flag.Parse()
	rng := rand.New(rand.NewPCG(*seed, 7))
	n := sizes[rng.IntN(len(sizes))]
	a := make([]float64, n)
	b := make([]int32, n)
	c := make([]int64, n)
	d := make([]uint8, n)
	for i := range n {
		a[i], b[i], c[i], d[i] = float64(i)*0.5, int32(i*3), int64(i)*7, uint8(i)
	}
	for r := 0; r < *regions; r++ {
		stride, off := 1+rng.IntN(n-1), rng.IntN(n)
		var sum, mix int64
		switch rng.IntN(4) {
		case 0:
			//cape:parallel for schedule(static) reduction(+:sum)
			for i := 0; i < n; i++ {
				j := (i*stride + off) % n
				a[j] = a[j]*0.5 + float64(b[(j+1)%n]) + float64(d[(j*7)%n])
				sum += int64(a[j])
			}
		case 1:
			//cape:parallel for schedule(dynamic, 13) reduction(+:sum) reduction(^:mix)
			for i := 0; i < n; i++ {
				j := (i*stride + off) % n
				b[j] = b[j]*3 + int32(c[(j*5)%n]) + int32(d[j])
				sum += int64(b[j])
				mix ^= int64(b[j]) << (j % 17)
			}
		case 2:
			//cape:parallel for schedule(guided) reduction(^:mix)
			for i := 0; i < n; i++ {
				j := (i*stride + off) % n
				c[j] = c[j]*31 + int64(a[(j+3)%n]) + int64(b[(j*11)%n])
				mix ^= c[j]
			}
		default:
			//cape:parallel for schedule(static, 7) reduction(+:sum)
			for i := 0; i < n; i++ {
				j := (i*stride + off) % n
				d[j] = d[j]*5 + uint8(c[(j+2)%n]) + uint8(b[j])
				sum += int64(d[j])
			}
		}
		fmt.Printf("region %d: %d %d\n", r, sum, mix)
	}
	h := uint64(14695981039346656037)
	for i := range n {
		for _, v := range []uint64{uint64(int64(a[i])), uint64(b[i]), uint64(c[i]), uint64(d[i])} {
			h = (h ^ v) * 1099511628211
		}
	}
	fmt.Printf("n=%d hash=%016x\n", n, h)
}
