package main

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/bench/baselines/mpnet"
	"github.com/cape-go/cape/bench/workkernel"
)

// cg runs examples/cg's iterations over this rank's block of rows.
func cg(j *job) (string, error) {
	m, size := max(j.n, 2), j.l.Size()
	rows := m * m
	lo, hi := workkernel.Block(0, rows, j.l.Rank(), size)
	if rows/size < m { // the smallest block, the same test on every rank
		return "", fmt.Errorf("%d rows over %d ranks: a rank needs at least m=%d rows (the halo)", rows, size, m)
	}
	a := workkernel.Poisson(m, lo, hi)
	x := make([]float64, rows)
	r := make([]float64, rows)
	p := make([]float64, rows)
	q := make([]float64, rows)
	workkernel.Fill(r[lo:hi], lo)
	copy(p[lo:hi], r[lo:hi])
	sum := func(v int64) (int64, error) {
		w, err := j.l.Allreduce(uint64(v), mpnet.SumInt64, &j.c)
		return int64(w), err
	}
	rr, err := sum(workkernel.SquaresFixed(r, lo, hi))
	if err != nil {
		return "", err
	}
	j.c = mpnet.Counter{} // count the iterations only
	var up, down []byte
	if lo > 0 {
		up = mpnet.Bytes(p[lo-m : lo])
	}
	if hi < rows {
		down = mpnet.Bytes(p[hi : hi+m])
	}
	j.start = time.Now()
	for it := 0; it < j.iters && rr != 0; it++ {
		if err := j.l.Halo(mpnet.Bytes(p[lo:lo+m]), up, mpnet.Bytes(p[hi-m:hi]), down, &j.c); err != nil {
			return "", fmt.Errorf("iteration %d: %w", it, err)
		}
		var pq, next int64
		j.timed(func() { pq = a.MatVecDot(p, q) })
		if pq, err = sum(pq); err != nil {
			return "", fmt.Errorf("iteration %d: %w", it, err)
		}
		if pq == 0 {
			break
		}
		alpha := float64(rr) / float64(pq)
		j.timed(func() { next = workkernel.Update(x, r, p, q, alpha, lo, hi) })
		if next, err = sum(next); err != nil {
			return "", fmt.Errorf("iteration %d: %w", it, err)
		}
		beta := float64(next) / float64(rr)
		rr = next
		j.timed(func() { workkernel.Direction(p, r, beta, lo, hi) })
	}
	err = j.l.Gather(mpnet.Bytes(x[lo:hi]), func(k int) []byte {
		lo, hi := workkernel.Block(0, rows, k, size)
		return mpnet.Bytes(x[lo:hi])
	})
	if err != nil || j.l.Rank() != 0 {
		return "", err
	}
	return workkernel.CGLine(x, m, j.iters, rr), nil
}
