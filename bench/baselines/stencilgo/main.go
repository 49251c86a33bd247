package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/cape-go/cape/bench/stencilkernel"
)

func main() {
	n := flag.Int("n", 256, "grid size (n×n points)")
	iters := flag.Int("iters", 100, "number of Jacobi iterations")
	workers := flag.Int("workers", runtime.NumCPU(), "number of goroutines")
	flag.Parse()
	if *workers < 1 || *iters < 0 {
		fmt.Fprintln(os.Stderr, "stencilgo: -workers must be positive and -iters not negative")
		os.Exit(2)
	}
	size := max(*n, stencilkernel.MinSize)
	u := make([]float64, size*size)
	v := make([]float64, size*size)
	stencilkernel.Init(u, v, size)

	parts := make([]float64, *workers)
	var diff float64
	start := time.Now()
	for it := 0; it < *iters; it++ {
		var wg sync.WaitGroup
		for w := range *workers {
			lo, hi := stencilkernel.Rows(size, w, *workers)
			wg.Go(func() { parts[w] = stencilkernel.Sweep(u, v, size, lo, hi) })
		}
		wg.Wait()
		diff = 0
		for _, d := range parts {
			diff = max(diff, d)
		}
		u, v = v, u
	}
	elapsed := time.Since(start)

	fmt.Println(stencilkernel.Line(u, size, *iters, diff))
	fmt.Fprintf(os.Stderr, "stencil: iterations %.6fs on %d goroutine(s)\n", elapsed.Seconds(), *workers)
}
