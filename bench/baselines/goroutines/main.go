package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/cape-go/cape/bench/kernel"
)

func main() {
	n := flag.Int("n", 512, "matrix size (n×n)")
	workers := flag.Int("workers", runtime.NumCPU(), "number of goroutines")
	flag.Parse()
	if *n < 1 || *workers < 1 {
		fmt.Fprintln(os.Stderr, "goroutines: -n and -workers must be positive")
		os.Exit(2)
	}
	size := *n
	a := make([]int64, size*size)
	b := make([]int64, size*size)
	c := make([]int64, size*size)
	kernel.Fill(a, b)

	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		lo, hi := kernel.Block(size, w, *workers)
		wg.Go(func() { kernel.Multiply(a, b, c, size, lo, hi) })
	}
	wg.Wait()
	elapsed := time.Since(start)

	fmt.Printf("matmul n=%d checksum=%016x\n", size, kernel.Checksum(c))
	fmt.Fprintf(os.Stderr, "matmul: parallel part %.3fs on %d goroutine(s)\n", elapsed.Seconds(), *workers)
}
