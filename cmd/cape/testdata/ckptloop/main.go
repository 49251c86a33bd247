// Command ckptloop is a test program for the checkpoint log: a time loop
// whose regions have reductions and a lastprivate value, and whose
// sequential code between regions uses what they computed and prints. Every
// node reports its pid on stderr; -pause slows the loop down so that a test
// can kill the master mid-run.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"
)

func main() {
	n := flag.Int("n", 3000, "elements")
	steps := flag.Int("steps", 30, "time steps (two regions each)")
	pause := flag.Duration("pause", 0, "sleep after each step")
	flag.Parse()
	fmt.Fprintf(os.Stderr, "pid %d\n", os.Getpid())
	a := make([]int64, *n)
	b := make([]float64, *n)
	var total int64
	for s := 0; s < *steps; s++ {
		var sum int64
		hi := int64(math.MinInt64)
		last := -1
		//cape:parallel for reduction(+:sum) reduction(max:hi) lastprivate(last)
		for i := 0; i < *n; i++ {
			a[i] = (a[i]*31 + int64(i*s) + total) % 1000003
			sum += a[i]
			hi = max(hi, a[i])
			last = i + s
		}
		total += sum%97 + hi%13 + int64(last)
		var fsum float64
		//cape:parallel for schedule(dynamic, 64) reduction(+:fsum)
		for i := 0; i < *n; i++ {
			b[i] = b[i]/2 + float64(a[i]%1024)/4
			fsum += b[i]
		}
		if s%5 == 0 {
			fmt.Printf("step %d total %d fsum %.2f\n", s, total, fsum)
		}
		time.Sleep(*pause)
	}
	fmt.Printf("final %d %d %.2f\n", total, a[*n/2], b[*n/3])
}
