// Command cg solves A·x = b by the conjugate-gradient method for the 2-D
// Poisson matrix (the 5-point Laplacian of an m×m grid, N = m² unknowns)
// stored in CSR, b deterministic pseudo-random, for a fixed number of
// iterations. Every iteration is three short parallel regions: the sparse
// matrix–vector product with the dot product p·q as a reduction, the two
// axpy updates with r·r as a reduction, and the new search direction. It is
// `cape bench cg`'s program: thousands of regions of microseconds each.
//
// The dot products are summed in 32.32 fixed point (int64 terms, whose sum
// is associative), so that every split of the rows over nodes gives the
// same bits as the sequential loop; an iteration whose dot product rounds
// to zero ends the solve (converged).
//
// It prints `cg n=M iters=K rr=R hash=H` on stdout (R the last r·r, H an
// FNV-1a hash of the bits of x) and the time of the iterations on stderr.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cape-go/cape/bench/workkernel"
)

// scale is the fixed point of the dot products: 32 fractional bits.
const scale = workkernel.FixedPoint

func main() {
	n := flag.Int("n", 64, "grid side m (m² unknowns)")
	iters := flag.Int("iters", 100, "number of iterations")
	flag.Parse()
	m := max(*n, 2)
	rows := m * m
	a := workkernel.Poisson(m, 0, rows) // the CSR arrays of the whole matrix
	rowptr, col, val := a.Ptr, a.Col, a.Val

	x := make([]float64, rows)
	r := make([]float64, rows)
	p := make([]float64, rows)
	q := make([]float64, rows)
	var rr int64
	for i := range r {
		r[i] = workkernel.Random(i)
		p[i] = r[i]
		rr += int64(float64(r[i]*r[i]) * scale)
	}

	start := time.Now()
	for it := 0; it < *iters && rr != 0; it++ {
		var pq int64
		//cape:parallel for schedule(static) reduction(+:pq)
		for i := 0; i < rows; i++ {
			var s float64
			for k := rowptr[i]; k < rowptr[i+1]; k++ {
				s += float64(val[k] * p[col[k]])
			}
			q[i] = s
			pq += int64(float64(s*p[i]) * scale)
		}
		if pq == 0 {
			break
		}
		alpha := float64(rr) / float64(pq)
		var next int64
		//cape:parallel for schedule(static) reduction(+:next)
		for i := 0; i < rows; i++ {
			x[i] += float64(alpha * p[i])
			r[i] -= float64(alpha * q[i])
			next += int64(float64(r[i]*r[i]) * scale)
		}
		beta := float64(next) / float64(rr)
		rr = next
		//cape:parallel for schedule(static)
		for i := 0; i < rows; i++ {
			p[i] = r[i] + float64(beta*p[i])
		}
	}
	elapsed := time.Since(start)

	fmt.Println(workkernel.CGLine(x, m, *iters, rr))
	fmt.Fprintf(os.Stderr, "cg: iterations %.6fs\n", elapsed.Seconds())
}
