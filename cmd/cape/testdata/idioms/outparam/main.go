// Command outparam gives its slices their memory through their addresses:
// an out-parameter helper (load(&vals, n) storing *dst = make(...)), a
// pointer kept in a local (p := &a; *p = make(...)), a helper building a
// buffer and storing it (*out = buf), and a pointer method of a named
// slice type re-making its receiver (v.Resize(n), also through a pointer
// to it: pu.Resize(n)); regions then write
// them. The memory must be placed where the slaves' writes land.
package main

import "fmt"

type Vec []float64

func (v *Vec) Resize(n int) { *v = make(Vec, n) }

func load(dst *[]float64, n int) {
	*dst = make([]float64, n)
	for i := range *dst {
		(*dst)[i] = float64(i + 1)
	}
}

func setup(out *[]int, n int) error {
	buf := make([]int, n)
	for i := range buf {
		buf[i] = 1
	}
	*out = buf
	return nil
}

func main() {
	const n = 40
	var vals []float64
	load(&vals, n)
	var a []float64
	p := &a
	*p = make([]float64, n)
	var w []int
	if err := setup(&w, n); err != nil {
		panic(err)
	}
	var v Vec
	v.Resize(n)
	var u Vec
	pu := &u
	pu.Resize(n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		vals[i] *= 2
		a[i] = float64(i * i)
		w[i] += i
		v[i] = vals[i] + a[i]
		u[i] = float64(w[i])
	}
	fmt.Println(vals[n-1], a[n-1], w[n-1], v[n-1], v[n/2], u[3])
}
