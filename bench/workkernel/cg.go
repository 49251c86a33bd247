package workkernel

import "fmt"

// CSR is the rows [Lo, Hi) of a sparse matrix: row i's entries are
// Col[k], Val[k] for k in [Ptr[i-Lo], Ptr[i-Lo+1]); columns are global.
type CSR struct {
	Lo, Hi int
	Ptr    []int
	Col    []int
	Val    []float64
}

// Poisson returns the rows [lo, hi) of the 5-point Laplacian of an m×m
// grid, entries in examples/cg's order (up, left, centre, right, down).
func Poisson(m, lo, hi int) *CSR {
	a := &CSR{Lo: lo, Hi: hi, Ptr: make([]int, 1, hi-lo+1)}
	for i := lo; i < hi; i++ {
		y, x := i/m, i%m
		add := func(ok bool, c int, v float64) {
			if ok {
				a.Col = append(a.Col, c)
				a.Val = append(a.Val, v)
			}
		}
		add(y > 0, i-m, -1)
		add(x > 0, i-1, -1)
		add(true, i, 4)
		add(x < m-1, i+1, -1)
		add(y < m-1, i+m, -1)
		a.Ptr = append(a.Ptr, len(a.Col))
	}
	return a
}

// MatVecDot writes q[i] = (A·p)[i] for A's rows and returns Σ p[i]·q[i]
// over them in fixed point (FixedPoint).
//
//go:noinline
func (a *CSR) MatVecDot(p, q []float64) int64 {
	var dot int64
	for i := a.Lo; i < a.Hi; i++ {
		var s float64
		for k := a.Ptr[i-a.Lo]; k < a.Ptr[i-a.Lo+1]; k++ {
			s += float64(a.Val[k] * p[a.Col[k]])
		}
		q[i] = s
		dot += int64(float64(s*p[i]) * FixedPoint)
	}
	return dot
}

// Update does x += alpha·p and r -= alpha·q over [lo, hi) and returns
// Σ r[i]² over them in fixed point.
//
//go:noinline
func Update(x, r, p, q []float64, alpha float64, lo, hi int) int64 {
	var rr int64
	for i := lo; i < hi; i++ {
		x[i] += float64(alpha * p[i])
		r[i] -= float64(alpha * q[i])
		rr += int64(float64(r[i]*r[i]) * FixedPoint)
	}
	return rr
}

// Direction writes p = r + beta·p over [lo, hi).
func Direction(p, r []float64, beta float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		p[i] = r[i] + float64(beta*p[i])
	}
}

// SquaresFixed returns Σ r[i]² over [lo, hi) in fixed point.
func SquaresFixed(r []float64, lo, hi int) int64 {
	var rr int64
	for i := lo; i < hi; i++ {
		rr += int64(float64(r[i]*r[i]) * FixedPoint)
	}
	return rr
}

// CGLine returns the line examples/cg prints for its final x on an m×m
// grid after iters iterations whose last r·r was rr (in fixed point).
func CGLine(x []float64, m, iters int, rr int64) string {
	return fmt.Sprintf("cg n=%d iters=%d rr=%.9e hash=%016x", m, iters, float64(rr)/FixedPoint, Hash(HashStart, x))
}
