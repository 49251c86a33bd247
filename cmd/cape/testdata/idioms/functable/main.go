// Command functable calls functions from a package table nothing writes,
// and closures each iteration appends to a slice of its own.
package main

import (
	"fmt"
	"math"
)

var ops = []func(float64) float64{
	math.Sqrt,
	func(x float64) float64 { return x * x },
	negate,
}

func negate(x float64) float64 { return -x }

func main() {
	n := 3000
	in := make([]float64, n)
	out := make([]float64, n)
	for i := range in {
		in[i] = float64(i) / 10
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		f := ops[i%len(ops)]
		out[i] = f(in[i])
		var fs []func() float64
		for k := 0; k < 3; k++ {
			fs = append(fs, func() float64 { return float64(i*10 + k) })
		}
		for _, g := range fs {
			out[i] += g()
		}
	}
	var s float64
	for _, v := range out {
		s += v
	}
	fmt.Printf("%.6f\n", s)
}
