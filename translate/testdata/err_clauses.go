package main

import "fmt"

func main() {
	n := 10
	a := make([]float64, n)
	var s string
	var p *int
	x, y := 0, 0.0
	//cape:parallel for nowait(x) // want "unknown clause \"nowait\""
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for private(nosuch) // want "private: undefined: nosuch"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for private(x) reduction(+:x) // want "x appears in both private and reduction"
	for i := 0; i < n; i++ {
		x = i
	}
	//cape:parallel for reduction(+:x) reduction(*:x) // want "x appears twice in reduction clauses"
	for i := 0; i < n; i++ {
		x += i
	}
	//cape:parallel for reduction(+:s) // want "reduction variable s has type string"
	for i := 0; i < n; i++ {
		s += "x" // no follow-on error for the refused clause's variable
	}
	//cape:parallel for reduction(&:y) // want "needs an integer variable"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for reduction(%:x) // want "unknown reduction operator"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for schedule(sometimes) // want "unknown schedule kind"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for lastprivate(p) // want "lastprivate variable p has type \\*int, which contains pointers"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for private(i) // want "private: undefined: i"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for schedule(dynamic, 1.5) // want "want an integer"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for schedule(dynamic, 0) // want "schedule chunk size 0: it must be positive"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for schedule(static, 2-3) // want "schedule chunk size 2-3 is -1: it must be positive"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for private(fmt) // want "fmt is not a variable"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for private x // want "clause private needs a parenthesized list"
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	fmt.Println(a, s, p, x, y)
}
