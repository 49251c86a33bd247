package main

import (
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math"
	"os"
	"sort"
	"strings"
)

// Writes that a region makes through code it calls indirectly: every slice
// written here moves to the arena.

type setter interface{ Set(i int, v float64) }

type vec []float64

func (v vec) Set(i int, x float64) { v[i] = x }

type counter struct{ hits [4]int64 }

func (c *counter) Set(i int, x float64) { c.hits[i%4]++ }

type byVal []float64

func (b byVal) Len() int           { return len(b) }
func (b byVal) Less(i, j int) bool { return b[i] < b[j] }
func (b byVal) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func apply(n int, f func(i int)) {
	//cape:parallel for
	for i := 0; i < n; i++ {
		f(i)
	}
}

func adder(dst []float64) func(int, float64) {
	return func(i int, v float64) { dst[i] += v }
}

func each[S setter](s S, n int) {
	//cape:parallel for
	for i := 0; i < n; i++ {
		s.Set(i, 1)
	}
}

func main() {
	n := 16
	out := make([]float64, n)
	put := func(i int, v float64) { out[i] = v }
	//cape:parallel for
	for i := 0; i < n; i++ {
		put(i, float64(i*i))
	}

	viaParam := make([]float64, n)
	kernel := func(dst []float64, i int) { dst[i] = float64(i) }
	//cape:parallel for
	for i := 0; i < n; i++ {
		kernel(viaParam, i)
	}

	viaHelper := make([]float64, n)
	apply(n, func(i int) { viaHelper[i] = float64(i) })

	byMethod := make(vec, n)
	apply(n, func(i int) { byMethod.Set(i, 2) })
	set := byMethod.Set
	//cape:parallel for
	for i := 0; i < n; i++ {
		set(i, 3)
	}

	viaIface := make([]float64, n)
	var s setter = vec(viaIface)
	//cape:parallel for
	for i := 0; i < n; i++ {
		s.Set(i, 4)
	}

	viaGeneric := make([]float64, n)
	each(vec(viaGeneric), n)

	sums := make([]float64, n)
	add := adder(sums)
	//cape:parallel for
	for i := 0; i < n; i++ {
		add(i, 5)
	}

	compared := make([]int, n)
	less := func(i, j int) bool { compared[i] = 1; return i > j }
	//cape:parallel for
	for i := 0; i < n/2; i++ {
		sort.Slice(out[2*i:2*i+2], less)
		sort.Float64s(sums[2*i : 2*i+2])
	}

	sorted := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n/4; i++ {
		sort.Sort(byVal(sorted[4*i : 4*i+4]))
	}

	// A table of functions never written, and closures a region's
	// iteration appends to a slice of its own and ranges over.
	tabled := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		tabled[i] = kernels[i%len(kernels)](float64(i))
		var fs []func() float64
		for k := range 3 {
			fs = append(fs, func() float64 { return float64(i*10 + k) })
		}
		for _, f := range fs {
			tabled[i] += f()
		}
	}

	var c counter
	_ = setter(&c)
	// A right-hand side holding the region, handed to a solver that
	// only calls it: its parameters are the solver's arguments.
	y, dy := make([]float64, n), make([]float64, n)
	decay := func(y, dy []float64) {
		//cape:parallel for
		for i := 0; i < len(y); i++ {
			dy[i] = -0.5 * y[i]
		}
	}
	euler(decay, y, dy)
	// Reading at an offset changes nothing the merge must see.
	rd := strings.NewReader("abcdefgh")
	got := make([]byte, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		b := make([]byte, 1)
		if _, err := rd.ReadAt(b, int64(i)); err == nil {
			got[i] = b[0]
		}
	}
	// An iterator of the package ranged over in the body: its yield is
	// the range statement's body.
	evensSum := make([]int, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		for e := range evens(i) {
			evensSum[i] += e
		}
	}
	printRows(evensSum)
	// A checksum of the standard library's made per iteration, over bytes
	// read from a file: Write only reads them.
	blob, _ := os.ReadFile("calls.go")
	sumsH := make([]uint64, 4)
	//cape:parallel for
	for c := 0; c < 4; c++ {
		h := fnv.New64a()
		h.Write(blob[c : c+1])
		sumsH[c] = h.Sum64()
	}
	fmt.Println(out, viaParam, viaHelper, byMethod, viaIface, viaGeneric, sums, compared, sorted, tabled, c, y, got, evensSum, sumsH)
}

func evens(n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for k := 0; k < n; k += 2 {
			if !yield(k) {
				return
			}
		}
	}
}

func euler(f func(y, dy []float64), y, dy []float64) {
	f(y, dy)
	for i := range y {
		y[i] += 0.1 * dy[i]
	}
}

var kernels = []func(float64) float64{math.Sqrt, func(x float64) float64 { return x * x }, halve}

func halve(x float64) float64 { return x / 2 }

// A writer that only ever holds the standard output or error prints there.
var logw io.Writer = os.Stderr

func printRows(a []int) {
	var w io.Writer = os.Stdout
	lg := log.New(os.Stdout, "rows: ", 0)
	//cape:parallel for
	for i := 0; i < len(a); i++ {
		a[i] = i * i
		fmt.Fprintln(w, "row", i, a[i])
		fmt.Fprintf(logw, "done %d\n", i)
		report(w, i)
		lg.Printf("row %d", i)
	}
}

func report(w io.Writer, i int) { fmt.Fprintf(w, "%d\n", i) }
