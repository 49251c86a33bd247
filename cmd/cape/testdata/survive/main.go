// Command survive is a test program for surviving lost nodes: every node
// reports its pid on stderr, then five regions run, one per schedule
// (static, static with a chunk, dynamic, guided, sections), with
// reductions and lastprivate values, and the master prints the results.
// Each iteration does enough work (a few tens of microseconds) for a fault
// injected at=compute to land in the middle of a region.
package main

import (
	"flag"
	"fmt"
	"os"
)

// work is a deterministic hash of i, slow on purpose.
func work(i, rounds int) int64 {
	x := uint64(i)*0x9E3779B97F4A7C15 + 1
	for range rounds {
		x ^= x >> 31
		x *= 0xBF58476D1CE4E5B9
		x ^= x >> 29
	}
	return int64(x % 1_000_003)
}

func main() {
	n := flag.Int("n", 2000, "iterations per region")
	rounds := flag.Int("rounds", 200, "work per iteration")
	flag.Parse()
	fmt.Fprintf(os.Stderr, "pid %d\n", os.Getpid())

	a := make([]int64, *n)
	var sum int64
	last := -1
	//cape:parallel for schedule(static) reduction(+:sum) lastprivate(last)
	for i := 0; i < *n; i++ {
		a[i] = work(i, *rounds)
		sum += a[i]
		last = i * 7
	}
	fmt.Println("static:", sum, last)

	var prod uint64 = 1
	//cape:parallel for schedule(static, 7) reduction(*:prod) lastprivate(last)
	for i := 0; i < *n; i++ {
		a[i] += work(i+1, *rounds) % 97
		prod *= uint64(a[i]) | 1
		last = int(a[i])
	}
	fmt.Println("static, 7:", prod, last)

	var hi int64
	//cape:parallel for schedule(dynamic, 16) reduction(max:hi) lastprivate(last)
	for i := 0; i < *n; i++ {
		a[i] ^= work(i+2, *rounds)
		hi = max(hi, a[i])
		last = i
	}
	fmt.Println("dynamic, 16:", hi, last)

	lo := int64(1 << 62)
	var xor int64
	//cape:parallel for schedule(guided) reduction(min:lo) reduction(^:xor)
	for i := 0; i < *n; i++ {
		a[i] = a[i]*3 + work(i+3, *rounds)
		lo = min(lo, a[i])
		xor ^= a[i]
	}
	fmt.Println("guided:", lo, xor)

	b := make([]int64, 4)
	var total int64
	who := 0
	//cape:parallel sections reduction(+:total) lastprivate(who)
	{
		//cape:section
		{
			b[0] = work(10, *rounds**n)
			total += b[0]
			who = 1
		}
		//cape:section
		{
			b[1] = work(11, *rounds**n)
			total += b[1]
			who = 2
		}
		//cape:section
		{
			b[2] = work(12, *rounds**n)
			total += b[2]
			who = 3
		}
		//cape:section
		{
			b[3] = work(13, *rounds**n)
			total += b[3]
			who = 4
		}
	}
	var check int64
	for _, v := range a {
		check = check*31 + v
	}
	fmt.Println("sections:", b, total, who)
	fmt.Println("check:", check)
}
