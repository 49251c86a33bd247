package main

import (
	"fmt"
	"math"
)

// A loop's condition and increment are evaluated once, before the loop:
// refused where go run would find other values at a later iteration (a
// call, a receive, the loop variable, what the body writes), or where
// go run's variable wraps around before the condition is false.

var calls int

func limit(n int) int {
	calls++
	return n
}

type box struct{ n, m int }

var total = 8

func shrink()            { total = 4 }  // want "total is assigned in iterations" "total is modified in the parallel loop \\(called from the parallel region at err_loophead.go:108\\), but the loop's bound total uses it"
func setN(b *box, v int) { b.n = v }    // want "b.n is modified in the parallel loop \\(called from the parallel region at err_loophead.go:97\\), but the loop's bound d.n reads the field n"
func reset(b *box)       { *b = box{} } // want "\\*b is modified in the parallel loop \\(called from the parallel region at err_loophead.go:97\\), but the loop's bound d.n reads the field n"
func first(b *box) int   { return b.n }

func main() {
	n := 10
	a := make([]int, 2*n)
	//cape:parallel for
	for i := 0; i < limit(n); i++ { // want "the loop condition calls limit, which go run calls at every iteration and CAPE once"
		a[i] = i
	}
	//cape:parallel for
	for i := 0; i < n; i += limit(2) { // want "the loop increment calls limit"
		a[i] = i
	}
	//cape:parallel for
	for i := 0; i < n-i; i++ { // want "the loop's bound uses the loop variable i"
		a[i] = i
	}
	//cape:parallel for
	for i := 0; i < min(n, len(a), int(math.Sqrt(float64(n*n)))); i++ {
		a[i] = i
	}
	var u uint = 3
	//cape:parallel for
	for i := u; i >= 0; i-- { // want "the loop condition i >= 0 holds for every value of i \\(uint\\): go run never ends this loop"
		a[i] = 1
	}
	//cape:parallel for
	for i := n; i <= math.MaxInt64; i++ { // want "the loop condition i <= math.MaxInt64 holds for every value of i \\(int\\)"
		a[i] = 1
	}
	//cape:parallel for
	for i := int8(100); i < 127; i += 10 { // want "i \\(int8\\) wraps around above 127 before i < 127 is false \\(after i = 120 comes -126\\)"
		a[i] = 1
	}
	//cape:parallel for
	for i := uint8(9); i >= 1; i -= 2 { // want "i \\(uint8\\) wraps around below 0 before i >= 1 is false \\(after i = 1 comes 255\\)"
		a[i] = 1
	}
	fmt.Println(a, calls)
	writes()
	elems()
}

// The body, or a function it calls, writes what the bound or step reads.
func writes() {
	n, k := 10, 1
	a := make([]int, 100)
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = 1
		if i == 3 {
			n = 5 // want "n is modified in the parallel loop, but the loop's bound n uses it"
		}
	}
	//cape:parallel for
	for i := 0; i < n; i += k {
		a[i] = 1
		if i == 4 {
			k = 2 // want "k is modified in the parallel loop, but the loop's step k uses it"
		}
	}
	c := &box{n: 20}
	//cape:parallel for
	for i := 0; i < c.n; i++ {
		a[i] = 1
		if i == 4 {
			c.n = 8 // want "c.n is modified in the parallel loop, but the loop's bound c.n reads the field n"
		}
	}
	d := &box{n: 20}
	//cape:parallel for
	for i := 0; i < d.n; i++ {
		a[i] = 1
		if i == 4 {
			setN(c, 3)
		}
		if i == 5 {
			reset(c)
		}
		_ = first(d)
	}
	//cape:parallel for
	for i := 0; i < total; i++ {
		a[i] = 1
		if i == 2 {
			shrink()
		}
	}
	fmt.Println(n, k, a, c.n, total)
}

func elems() {
	lim := make([]int, 4)
	lim[0] = 10
	other := lim
	out := make([]int, 100)
	np := new(int)
	*np = 12
	//cape:parallel for
	for i := 0; i < lim[0]; i++ {
		out[i] = 1
		if i == 3 {
			lim[0] = 5 // want "lim\\[0\\] is modified in the parallel loop, but the loop's bound lim\\[0\\] reads an int"
		}
		if i == 4 {
			other[0] = 6 // want "other\\[0\\] is modified in the parallel loop, but the loop's bound lim\\[0\\] reads an int"
		}
	}
	//cape:parallel for
	for i := 0; i < *np; i++ {
		out[i] = 2 // out and np are made apart: out[i] is not *np
	}
	//cape:parallel for
	for i := 0; i < len(out); i++ {
		out[i] = 3
	}
	fmt.Println(out, lim, other)
}
