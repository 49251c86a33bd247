package stencilkernel

import (
	"fmt"
	"math"

	"github.com/cape-go/cape/bench/workkernel"
)

// MinSize is the smallest grid; examples/stencil raises smaller sizes to it.
const MinSize = 3

// Init sets the hot top edge (row 0) of both grids to 1.
func Init(u, v []float64, size int) {
	for j := range size {
		u[j], v[j] = 1, 1 // the hot top edge
	}
}

// Sweep writes rows [lo, hi) of v (1 ≤ lo, hi ≤ size-1) from u and returns
// the largest change |v-u| over them (0 for no rows).
//
// Not inlined, so every baseline calls one compiled loop (see bench/kernel's
// Multiply for why that matters).
//
//go:noinline
func Sweep(u, v []float64, size, lo, hi int) float64 {
	var diff float64
	for i := lo; i < hi; i++ {
		for j := 1; j < size-1; j++ {
			k := i*size + j
			x := 0.25 * (u[k-size] + u[k+size] + u[k-1] + u[k+1])
			diff = max(diff, math.Abs(x-u[k]))
			v[k] = x
		}
	}
	return diff
}

// Line returns the line examples/stencil prints for the final grid u after
// iters iterations whose last one changed a point by at most diff.
func Line(u []float64, size, iters int, diff float64) string {
	var sum, weighted float64
	hash := uint64(14695981039346656037)
	for i := range size {
		for j := range size {
			sum += u[i*size+j]
			weighted += float64(u[i*size+j] * float64(i+1))
			hash ^= math.Float64bits(u[i*size+j])
			hash *= 1099511628211
		}
	}
	return fmt.Sprintf("n=%d iters=%d sum=%.9f weighted=%.9f last-diff=%.3e hash=%016x", size, iters, sum, weighted, diff, hash)
}

// Rows returns the interior rows [lo, hi) that part p of parts owns: the
// static schedule of the example's loop `for i := 1; i < size-1; i++`
// (cape's Region.Static split of its size-2 iterations, workkernel.Block).
func Rows(size, p, parts int) (lo, hi int) {
	return workkernel.Block(1, size-2, p, parts)
}
