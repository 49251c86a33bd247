package main

import (
	"fmt"
	"math"

	"github.com/cape-go/cape/bench/baselines/mpnet"
	"github.com/cape-go/cape/bench/stencilkernel"
)

// links are a rank's connections (package mpnet) seen as the grid's rows.
type links struct{ *mpnet.Links }

// connect sets up the links of rank among size ranks, the root listening
// on addr.
func connect(addr string, rank, size int) (*links, error) {
	l, err := mpnet.Connect(addr, rank, size)
	if err != nil {
		return nil, err
	}
	return &links{l}, nil
}

// exchange sends the first and last rows this rank owns in v, [lo, hi), to
// its neighbours while receiving theirs into rows lo-1 and hi.
func (l *links) exchange(v []float64, size, lo, hi int, c *mpnet.Counter) error {
	row := func(i int) []byte { return mpnet.Bytes(v[i*size : (i+1)*size]) }
	if err := l.Halo(row(lo), row(lo-1), row(hi-1), row(hi), c); err != nil {
		return fmt.Errorf("halo rows: %w", err)
	}
	return nil
}

// reduceMax sends d to the root; the root returns the largest of every
// rank's d (the other ranks return their own).
func (l *links) reduceMax(d float64, c *mpnet.Counter) (float64, error) {
	w, err := l.Reduce(math.Float64bits(d), mpnet.MaxFloat64, c)
	return math.Float64frombits(w), err
}

// gather sends every slave's rows of u to the root.
func (l *links) gather(u []float64, size int) error {
	lo, hi := stencilkernel.Rows(size, l.Rank(), l.Size())
	return l.Gather(mpnet.Bytes(u[lo*size:hi*size]), func(r int) []byte {
		lo, hi := stencilkernel.Rows(size, r, l.Size())
		return mpnet.Bytes(u[lo*size : hi*size])
	})
}
