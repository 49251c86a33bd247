package main

import "fmt"

// relax only indexes its parameters, so passing a slice to it keeps the
// slice's owner.
func relax(dst, src []float64) {
	//cape:parallel for
	for i := 1; i < len(dst)-1; i++ {
		dst[i] = (src[i-1] + src[i] + src[i+1]) / 3
	}
}

func keep(s []float64) []float64 { return s }

func main() {
	n := 1000
	// A new array per step, the old one dropped: freed before u = next.
	u := make([]float64, n)
	for s := 0; s < 10; s++ {
		next := make([]float64, n)
		relax(next, u)
		u = next
	}
	// Swapped buffers: nothing to free.
	a, b := make([]float64, n), make([]float64, n)
	for s := 0; s < 10; s++ {
		relax(b, a)
		a, b = b, a
	}
	// A buffer per iteration that dies there: freed at the end of the body.
	total := 0.0
	for k := 0; k < 3; k++ {
		tmp := make([]float64, n)
		relax(tmp, u)
		total += tmp[1]
	}
	// A buffer that escapes through a function the analysis does not
	// follow cannot be reclaimed: a warning.
	var kept [][]float64
	for k := 0; k < 2; k++ {
		out := make([]float64, n) // warn "out is allocated in the CAPE arena each time around this loop and never reclaimed"
		relax(out, u)
		kept = append(kept, keep(out))
	}
	// A sub-slice aliases the old array: it must not be freed.
	w := make([]float64, n)
	var view []float64
	for s := 0; s < 2; s++ {
		view = w[1:]
		next := make([]float64, n) // warn "next is allocated in the CAPE arena each time around this loop and never reclaimed"
		relax(next, w)
		w = next
	}
	// A closure sees the variable: it is not an owner either.
	c := make([]float64, n)
	get := func() float64 { return c[0] }
	for s := 0; s < 2; s++ {
		next := make([]float64, n) // warn "next is allocated in the CAPE arena each time around this loop and never reclaimed"
		relax(next, c)
		c = next
	}
	// An out-parameter helper called in a loop: what it replaced stays.
	var o []float64
	for s := 0; s < 2; s++ {
		load(&o, n)
		//cape:parallel for
		for i := 0; i < n; i++ {
			o[i] *= 2
		}
	}
	fmt.Println(u[n/2], a[1], total, len(kept), view[0], get(), o[0])
}

func load(dst *[]float64, n int) {
	*dst = make([]float64, n) // warn "o is allocated in the CAPE arena each time load is called, and it is called in a loop \\(free.go:[0-9]+\\)"
}
