package workkernel

import (
	"fmt"
	"math"
)

// FixedPoint is the scale of the CG dot products: 32 fractional bits.
const FixedPoint = 1 << 32

// Random returns the examples' deterministic pseudo-random value in [0, 1)
// for index k (a splitmix64 step).
func Random(k int) float64 {
	x := uint64(k)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// Fill sets s[k] = Random(off+k).
func Fill(s []float64, off int) {
	for k := range s {
		s[k] = Random(off + k)
	}
}

// Block returns the iterations [lo, hi) of part p of parts of a loop over
// [first, first+count): the schedule(static) split.
func Block(first, count, p, parts int) (lo, hi int) {
	q, rem := count/parts, count%parts
	lo = p*q + min(p, rem)
	hi = lo + q
	if p < rem {
		hi++
	}
	return first + lo, first + hi
}

// Hash is the FNV-1a hash of the bits of s, continued from h (start with
// HashStart).
func Hash(h uint64, s []float64) uint64 {
	for _, x := range s {
		h ^= math.Float64bits(x)
		h *= 1099511628211
	}
	return h
}

// HashStart is the FNV-1a offset basis.
const HashStart = uint64(14695981039346656037)

// Heat3D writes the interior points of planes [lo, hi) of v (1 ≤ lo,
// hi ≤ size-1) from u: one explicit step of the 7-point heat stencil.
//
//go:noinline
func Heat3D(u, v []float64, size, lo, hi int) {
	plane := size * size
	for i := lo; i < hi; i++ {
		for j := 1; j < size-1; j++ {
			for k := 1; k < size-1; k++ {
				c := i*plane + j*size + k
				s := u[c-plane] + u[c+plane] + u[c-size] + u[c+size] + u[c-1] + u[c+1]
				v[c] = u[c] + float64(0.125*(s-6*u[c]))
			}
		}
	}
}

// MatVecMax writes y[i] = Σ_j a[(i-lo)·n+j]·x[j] for the rows [lo, hi) of
// an n-column dense matrix whose rows from lo on are a, and returns the
// largest |y[i]| (0 for no rows).
//
//go:noinline
func MatVecMax(a, x, y []float64, n, lo, hi int) float64 {
	var m float64
	for i := lo; i < hi; i++ {
		row := a[(i-lo)*n : (i-lo+1)*n]
		var s float64
		for j := range n {
			s += float64(row[j] * x[j])
		}
		y[i] = s
		m = max(m, math.Abs(s))
	}
	return m
}

// Scale writes x[i] = y[i] / d for i in [lo, hi).
func Scale(x, y []float64, d float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		x[i] = y[i] / d
	}
}

// Heat3DLine returns the line examples/heat3d prints for its final grid u
// (size³ points) after iters steps: the sum of the points, in index order,
// and the hash of their bits.
func Heat3DLine(u []float64, size, iters int) string {
	var sum float64
	for _, x := range u {
		sum += x
	}
	return fmt.Sprintf("heat3d n=%d iters=%d sum=%.9f hash=%016x", size, iters, sum, Hash(HashStart, u))
}

// PowerLine returns the line examples/power prints for its final x after
// iters iterations of an n×n matrix whose last maximum was lambda.
func PowerLine(x []float64, n, iters int, lambda float64) string {
	return fmt.Sprintf("power n=%d iters=%d lambda=%.12e hash=%016x", n, iters, lambda, Hash(HashStart, x))
}
