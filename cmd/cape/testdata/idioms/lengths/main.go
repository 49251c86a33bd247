// Command lengths makes shared slices with lengths and capacities of
// several integer types (a uint64 constant, int64, uint32, a *flag.Int64)
// and fills them in parallel regions: a sieve of Eratosthenes.
package main

import (
	"flag"
	"fmt"
)

const limit uint64 = 5000

func main() {
	size := flag.Int64("size", 3000, "elements")
	flag.Parse()
	composite := make([]int32, limit+1)
	var n32 uint32 = 1000
	squares := make([]int64, n32, 2*n32)
	cubes := make([]float64, *size)
	for p := 2; p*p <= int(limit); p++ {
		if composite[p] != 0 {
			continue
		}
		//cape:parallel for
		for q := p * p; q <= int(limit); q += p {
			composite[q] = int32(p)
		}
	}
	//cape:parallel for schedule(static, 64)
	for i := range squares {
		squares[i] = int64(i) * int64(i)
	}
	//cape:parallel for schedule(dynamic, 100)
	for i := int64(0); i < *size; i++ {
		cubes[i] = float64(i * i * i)
	}
	primes := 0
	for i := 2; i <= int(limit); i++ {
		if composite[i] == 0 {
			primes++
		}
	}
	var s int64
	for _, x := range squares {
		s += x
	}
	fmt.Println(primes, composite[4999], len(squares), cap(squares), s, cubes[*size-1])
}
