// Command closure writes shared slices through closures called from
// parallel loops: a local closure, y += a*x (which a --verify re-run must
// not apply twice), and a closure given the slice as an argument.
package main

import "fmt"

func main() {
	n := 30
	out := make([]float64, n)
	put := func(i int, v float64) { out[i] = v }
	//cape:parallel for
	for i := 0; i < n; i++ {
		put(i, float64(i*i))
	}
	s := 0.0
	for _, v := range out {
		s += v
	}
	fmt.Println(s)

	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i], y[i] = float64(i), 1
	}
	a := 2.0
	axpy := func(i int) { y[i] += a * x[i] }
	//cape:parallel for schedule(dynamic, 4)
	for i := 0; i < n; i++ {
		axpy(i)
	}
	fmt.Println(y)

	// A closure given the slice it writes as an argument.
	z := make([]int64, n)
	scaleInto := func(dst []int64, i int, k int64) { dst[i] = k * int64(i) }
	//cape:parallel for
	for i := 0; i < n; i++ {
		scaleInto(z, i, 3)
	}
	fmt.Println(z)
}
