// Command sections runs four different computations on shared arrays as
// OpenMP-style parallel sections, then prints a checksum of the results.
//
// Without CAPE the sections run one after the other (go run
// ./examples/sections); with CAPE each node runs its share of the sections
// and the arrays are merged, so every node leaves the region with all four
// results.
package main

import (
	"flag"
	"fmt"
)

func main() {
	n := flag.Int("n", 1<<16, "length of the arrays")
	flag.Parse()

	squares := make([]int64, *n)
	sieve := make([]bool, *n)
	fib := make([]uint32, *n)
	var hist [16]int64
	var primes int

	//cape:parallel sections
	{
		//cape:section
		{
			for i := range squares {
				squares[i] = int64(i) * int64(i)
			}
		}
		//cape:section
		{
			// sieve[i] is true when i is composite.
			for i := 2; i*i < *n; i++ {
				if !sieve[i] {
					for j := i * i; j < *n; j += i {
						sieve[j] = true
					}
				}
			}
			for i := 2; i < *n; i++ {
				if !sieve[i] {
					primes++
				}
			}
		}
		//cape:section
		{
			a, b := uint32(0), uint32(1)
			for i := range fib {
				fib[i] = a
				a, b = b, a+b
			}
		}
		//cape:section
		{
			x := uint32(12345)
			for range *n {
				x = x*1103515245 + 12345
				hist[x>>28]++
			}
		}
	}

	var sum uint64
	for i := range *n {
		sum = sum*31 + uint64(squares[i]) + uint64(fib[i])
		if sieve[i] {
			sum ^= uint64(i)
		}
	}
	for _, h := range hist {
		sum = sum*31 + uint64(h)
	}
	fmt.Printf("n=%d primes=%d checksum=%016x\n", *n, primes, sum)
}
