package main

import (
	"fmt"
	"math"
	"time"

	"github.com/cape-go/cape/bench/baselines/mpnet"
	"github.com/cape-go/cape/bench/workkernel"
)

// power runs examples/power's iterations over this rank's block of rows.
func power(j *job) (string, error) {
	n, size := j.n, j.l.Size()
	if n < size {
		return "", fmt.Errorf("a %d×%d matrix has fewer rows than the %d ranks", n, n, size)
	}
	lo, hi := workkernel.Block(0, n, j.l.Rank(), size)
	a := make([]float64, (hi-lo)*n)
	workkernel.Fill(a, lo*n)
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	block := func(r int) []byte {
		lo, hi := workkernel.Block(0, n, r, size)
		return mpnet.Bytes(x[lo:hi])
	}
	var lambda float64
	j.start = time.Now()
	for it := 0; it < j.iters; it++ {
		var m float64
		j.timed(func() { m = workkernel.MatVecMax(a, x, y, n, lo, hi) })
		w, err := j.l.Allreduce(math.Float64bits(m), mpnet.MaxFloat64, &j.c)
		if err != nil {
			return "", fmt.Errorf("iteration %d: %w", it, err)
		}
		lambda = math.Float64frombits(w)
		j.timed(func() { workkernel.Scale(x, y, lambda, lo, hi) })
		if err := j.l.Allgather(block(j.l.Rank()), block, mpnet.Bytes(x), &j.c); err != nil {
			return "", fmt.Errorf("iteration %d: %w", it, err)
		}
	}
	if j.l.Rank() != 0 {
		return "", nil
	}
	return workkernel.PowerLine(x, n, j.iters, lambda), nil
}
