package main

import "fmt"

// Memory made by code that also runs inside a region cannot move to the
// arena there; where CAPE cannot prove it private, it refuses.

var keep [2]*[8]float64

// buffer is called before the region too: its result is written by the
// region, so it must be arena memory, but buffer also runs in the region.
func buffer() *[8]float64 {
	var b [8]float64 // want "q is written through in the parallel region at err_private_locals.go:33, but its memory is made here, in code that also runs inside a parallel region, .* \\(it reaches the write through a function result"
	return &b
}

// stash stores the address of its local in a package variable.
func stash(i int) {
	var c [8]float64 // want "an element of type \\*\\[8\\]float64 \\(as in keep\\) is written through .* but its memory is made here, in code that also runs inside a parallel region, .*\\(it is stored in memory"
	keep[i%2] = &c
	c[0] = float64(i)
}

func main() {
	const n = 8
	q := buffer()
	out := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		p := buffer()
		p[1] = 1
		stash(i)
		q[i%8] = float64(i)
		out[i] = p[1]
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		keep[0][i%8] = 2
	}
	fmt.Println(out, q[0], keep[0][0])
	methodValues()
	stored()
}

type buf struct{ a [8]float64 }

func (b *buf) set(i int) { b.a[i%8] = float64(i) }

// mk returns a method value bound to its local: called before the region
// and in it, the local may be shared memory.
func mk() func(int) {
	var w buf // want "b is written through in the parallel region at err_private_locals.go:47, .*made here, in code that also runs inside a parallel region, .*\\(it reaches the write through a function result, a method or interface value"
	return w.set
}

func methodValues() {
	g := mk()
	out := make([]float64, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		h := mk()
		h(i)
		g(i)
		out[i] = float64(i)
	}
	fmt.Println(out)
	r := make([]float64, 4)
	//cape:parallel for
	for k := 0; k < 4; k++ {
		r[k] = withRegion(k)
	}
	fmt.Println(r, withRegion(5))
}

// withRegion runs in a region and alone, and starts one itself: the array
// a literal makes is written by that region.
func withRegion(k int) float64 {
	var v *[8]float64
	set := func() {
		var a [8]float64 // want "v is written through in the parallel region at err_private_locals.go:86, .*made here, in code that also runs inside a parallel region"
		v = &a
	}
	set()
	//cape:parallel for
	for i := 0; i < 8; i++ {
		v[i] = float64(i * k)
	}
	return v[7]
}

// stored keeps in shared memory a slice an iteration built with append.
func stored() {
	rows := make([][]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		var r []int
		r = append(r, i) // want "r is written through in the parallel region at err_private_locals.go:[0-9]+ and is stored in shared memory, but it is made inside a parallel region"
		rows[i] = r
	}
	fmt.Println(rows)
}
