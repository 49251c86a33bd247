package main

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
)

// An update of shared memory at a place that names no variable of the
// iteration is made by every iteration at the same place: refused. One
// whose place names the loop variable, a local of the body or a private
// copy is each iteration's own.

type tally struct{ n, m int }

func main() {
	const n = 16
	t := &tally{}
	a := make([]int, n)
	b := make([][]int, n)
	for i := range b {
		b[i] = make([]int, 4)
	}
	k := 3
	var priv []int
	//cape:parallel for private(priv)
	for i := 0; i < n; i++ {
		t.n++        // want "t.n is updated in every iteration of the parallel loop at the same place"
		a[0] += i    // want "a\\[0\\] is updated in every iteration of the parallel loop at the same place"
		b[k][1] *= 2 // want "b\\[k\\]\\[1\\] is updated in every iteration of the parallel loop at the same place"
		a[i] += i
		b[i][k]++
		row := b[i]
		row[0] -= 1
		priv = append(priv[:0], i)
		p := &a[i]
		*p += 1
	}
	fmt.Println(t.n, a, b)
	more()
	deeper()
}

// Updates two calls deep: a parameter stands for its caller's argument.

type acc struct{ total int }

func (c *acc) add(k int)      { c.total += k }
func record(c *acc, v int)    { c.add(v) }
func into(h []int, k int)     { h[k] += 2 }
func relay(h []int, v int)    { into(h, v) }
func recordOwn(c *acc, v int) { own := &acc{}; own.add(v); c.total = own.total }

func deeper() {
	c := &acc{}
	h := make([]int, 8)
	out := make([]int, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		record(c, i) // want "record\\(c, i\\) updates c.total \\(at err_invariant.go:[0-9]+\\) in every iteration of the parallel loop at the same place"
		relay(h, 0)  // want "relay\\(h, 0\\) updates h\\[k\\] \\(at err_invariant.go:[0-9]+\\) in every iteration of the parallel loop at the same place"
		relay(out, i)
		mine := &acc{}
		record(mine, i)
		recordOwn(mine, i)
	}
	fmt.Println(c.total, h, out)
	boundaries()
}

// An update in one iteration only (the loop variable tested for
// equality) is not every iteration's.
func boundaries() {
	n := 8
	u := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		if i == 0 {
			u[0] += 100
		} else if i == n-1 && u[i] > 0 {
			u[n-1] *= 2
		} else {
			u[i] = u[i] * 0.5
		}
		if i > 2 {
			u[1] += 1 // want "u.1. is updated in every iteration of the parallel loop at the same place"
		}
	}
	last, first := 0.0, 0.0
	//cape:parallel for
	for i := 0; i < n; i++ {
		u[i] = float64(i)
		if i == n-1 {
			last = u[i] // one iteration writes it, none other reads it
		}
		if i == 0 {
			first = 7 // want "first is assigned in iterations of the parallel loop"
		}
		u[i] += first
	}
	fmt.Println(u, last)
}

func more() {
	s := make([]int, 2)
	var pcg rand.PCG
	var total atomic.Int64
	out := make([]uint64, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		s[0] = s[0] + 1       // want "s\\[0\\] is updated in every iteration of the parallel loop at the same place"
		out[i] = pcg.Uint64() // want "pcg.Uint64\\(\\) in every iteration of the parallel loop updates pcg, the same shared value"
		a := new(atomic.Int64)
		pa := &a
		*pa = &total
		a.Add(1) // want "a.Add in the parallel region updates memory that every node has a copy of" "atomic.Int64.Add may write through the slices or pointers that a holds"
		s[1] = 7
	}
	fmt.Println(s, out, total.Load())
}
