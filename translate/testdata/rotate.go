package main

import "fmt"

func step(dst, a, b []float64) {
	//cape:parallel for
	for i := 1; i < len(dst)-1; i++ {
		dst[i] = 2*a[i] - b[i] + (a[i-1] - 2*a[i] + a[i+1])
	}
}

func main() {
	n := 100
	// A leapfrog: prev's array loses its last reference at the rotation.
	prev, cur := make([]float64, n), make([]float64, n)
	for s := 0; s < 10; s++ {
		next := make([]float64, n)
		step(next, cur, prev)
		prev, cur = cur, next
	}
	// Three levels, the new one made in the rotation itself.
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	for s := 0; s < 10; s++ {
		step(z, y, x)
		x, y, z = y, z, make([]float64, n)
	}
	// A cycle drops nothing.
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for s := 0; s < 10; s++ {
		step(c, b, a)
		a, b, c = b, c, a
	}
	// The moved buffer is used after the rotation: two references, no free.
	p, q := make([]float64, n), make([]float64, n)
	for s := 0; s < 3; s++ {
		nq := make([]float64, n) // warn "nq is allocated in the CAPE arena each time around this loop and never reclaimed"
		step(nq, q, p)
		p, q = q, nq
		nq[0] = 1
	}
	// A variable copied twice on the right is no rotation.
	e, f := make([]float64, n), make([]float64, n)
	for s := 0; s < 3; s++ {
		g := make([]float64, n) // warn "g is allocated in the CAPE arena each time around this loop and never reclaimed"
		step(g, f, e)
		e, f = g, g
	}
	fmt.Println(cur[n/2], y[1], c[2], q[0], e[0], f[0], stages(n))
}

// stages keeps two Runge-Kutta-like stages in an array: permuting them
// frees nothing and needs nothing freed; a make stored into a stage each
// step is dropped the next step, and is reported.
func stages(n int) float64 {
	var k [2][]float64
	k[0], k[1] = make([]float64, n), make([]float64, n)
	for s := 0; s < 3; s++ {
		step(k[1], k[0], k[0])
		k[0], k[1] = k[1], k[0]
	}
	var r [2][]float64
	r[0] = make([]float64, n)
	for s := 0; s < 3; s++ {
		r[1] = make([]float64, n) // warn "r\\[1\\] is allocated in the CAPE arena each time around this loop and never reclaimed"
		step(r[1], r[0], r[0])
	}
	return k[0][1] + r[1][1]
}
