// Command ckpthomes is a test program for the checkpoint log under
// distributed homes: a time loop with a //cape:checkpoint point, whose
// regions write blocks of two arrays (homed at their writers), a reduction
// and a lastprivate value, and whose sequential code between regions reads
// elements of every block into a check it prints at the end (a restart
// from an image does not print again what the steps before its point
// printed). -pause slows each step down, so that the log's writer writes
// each image before the next.
package main

import (
	"flag"
	"fmt"
	"time"
)

func main() {
	n := flag.Int("n", 4096, "elements")
	steps := flag.Int("steps", 12, "time steps (two regions each)")
	pause := flag.Duration("pause", 0, "sleep after each step")
	flag.Parse()
	a := make([]int64, *n)
	b := make([]float64, *n)
	total, check := int64(0), 0.0
	for s := 0; s < *steps; s++ {
		//cape:checkpoint s, total, check, a, b
		var sum int64
		last := -1
		//cape:parallel for reduction(+:sum) lastprivate(last)
		for i := 0; i < *n; i++ {
			a[i] = (a[i]*31 + int64(i*s) + total) % 1000003
			sum += a[i]
			last = i + s
		}
		total += sum%97 + int64(last)
		//cape:parallel for schedule(static, 256)
		for i := 0; i < *n; i++ {
			b[i] = b[i]/2 + float64(a[i]%1024)/4
		}
		check = check/3 + float64(a[(s*977)%*n]) + b[(s*1013)%*n]
		time.Sleep(*pause)
	}
	fmt.Printf("final %d %d %.2f check %.6f\n", total, a[*n/2], b[*n/3], check)
}
