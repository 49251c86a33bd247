package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cape-go/cape/bench/baselines/mpnet"
	"github.com/cape-go/cape/bench/stencilkernel"
	"github.com/cape-go/cape/bench/workkernel"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "halogo: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	n := flag.Int("n", 256, "grid size (n×n points)")
	iters := flag.Int("iters", 100, "number of Jacobi iterations")
	rank := flag.Int("rank", 0, "this process's rank; 0 is the root")
	nranks := flag.Int("size", 1, "number of ranks")
	addr := flag.String("addr", "127.0.0.1:0", "host:port rank 0 listens on and the others dial")
	active := flag.Bool("active", false, "start every point at examples/jacobi's pseudo-random value instead of heating the top edge")
	flag.Parse()
	size := max(*n, stencilkernel.MinSize)
	if *nranks < 1 || *rank < 0 || *rank >= *nranks || *iters < 0 {
		return fmt.Errorf("bad flags: -rank %d -size %d -iters %d", *rank, *nranks, *iters)
	}
	if size-2 < *nranks {
		return fmt.Errorf("a %d×%d grid has %d interior rows, fewer than the %d ranks", size, size, size-2, *nranks)
	}
	l, err := connect(*addr, *rank, *nranks)
	if err != nil {
		return err
	}
	defer l.Close()

	u := make([]float64, size*size)
	v := make([]float64, size*size)
	lo, hi := stencilkernel.Rows(size, *rank, *nranks)
	if *active { // only the rows this rank reads: the others stay untouched
		workkernel.Fill(u[(lo-1)*size:(hi+1)*size], (lo-1)*size)
		copy(v[(lo-1)*size:(hi+1)*size], u[(lo-1)*size:(hi+1)*size])
	} else {
		stencilkernel.Init(u, v, size)
	}

	var c mpnet.Counter
	var diff float64
	var compute time.Duration
	start := time.Now()
	for it := 0; it < *iters; it++ {
		t := time.Now()
		d := stencilkernel.Sweep(u, v, size, lo, hi)
		compute += time.Since(t)
		if err := l.exchange(v, size, lo, hi, &c); err != nil {
			return fmt.Errorf("iteration %d: %w", it, err)
		}
		u, v = v, u
		if diff, err = l.reduceMax(d, &c); err != nil {
			return fmt.Errorf("iteration %d: %w", it, err)
		}
	}
	if err := l.gather(u, size); err != nil {
		return err
	}
	if *active && *rank == 0 {
		workkernel.Fill(u[(size-1)*size:], (size-1)*size) // the last row, never written
	}
	elapsed := time.Since(start)

	if *rank == 0 {
		fmt.Println(stencilkernel.Line(u, size, *iters, diff))
		fmt.Fprintf(os.Stderr, "stencil: iterations %.6fs on %d rank(s)\n", elapsed.Seconds(), *nranks)
	}
	per := func(b int64) int64 {
		if *iters == 0 {
			return 0
		}
		return b / int64(*iters)
	}
	fmt.Fprintf(os.Stderr, "halogo: rank %d: compute %.6fs, communication %.6fs; per iteration sent %d, received %d bytes\n",
		*rank, compute.Seconds(), (elapsed - compute).Seconds(), per(c.Sent), per(c.Recv))
	return l.Finish()
}
