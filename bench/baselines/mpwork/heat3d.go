package main

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/bench/baselines/mpnet"
	"github.com/cape-go/cape/bench/workkernel"
)

// heat3d runs examples/heat3d's steps over this rank's block of planes.
func heat3d(j *job) (string, error) {
	size := max(j.n, 3)
	plane := size * size
	if size-2 < j.l.Size() {
		return "", fmt.Errorf("a %d³ grid has %d interior planes, fewer than the %d ranks", size, size-2, j.l.Size())
	}
	lo, hi := workkernel.Block(1, size-2, j.l.Rank(), j.l.Size())
	u := make([]float64, plane*size)
	v := make([]float64, plane*size)
	mine := u[(lo-1)*plane : (hi+1)*plane] // with the planes around the block
	workkernel.Fill(mine, (lo-1)*plane)
	copy(v[(lo-1)*plane:], mine)
	planes := func(s []float64, a, b int) []byte { return mpnet.Bytes(s[a*plane : b*plane]) }
	j.start = time.Now()
	for it := 0; it < j.iters; it++ {
		j.timed(func() { workkernel.Heat3D(u, v, size, lo, hi) })
		var up, down []byte
		if lo > 1 {
			up = planes(v, lo-1, lo)
		}
		if hi < size-1 {
			down = planes(v, hi, hi+1)
		}
		if err := j.l.Halo(planes(v, lo, lo+1), up, planes(v, hi-1, hi), down, &j.c); err != nil {
			return "", fmt.Errorf("step %d: %w", it, err)
		}
		u, v = v, u
	}
	err := j.l.Gather(planes(u, lo, hi), func(r int) []byte {
		lo, hi := workkernel.Block(1, size-2, r, j.l.Size())
		return planes(u, lo, hi)
	})
	if err != nil || j.l.Rank() != 0 {
		return "", err
	}
	workkernel.Fill(u[(size-1)*plane:], (size-1)*plane) // the last face, never written
	return workkernel.Heat3DLine(u, size, j.iters), nil
}
