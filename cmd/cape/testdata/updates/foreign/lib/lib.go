// Package lib updates what it is handed: through a pointer, a pointer
// receiver's fields, a named slice type's elements.
package lib

// Add adds v to *p.
func Add(p *int, v int) { *p += v }

// Acc counts and sums.
type Acc struct{ N, S int }

// Add counts v and adds it.
func (a *Acc) Add(v int) {
	a.N++
	a.S += v
}

// Counts is a histogram.
type Counts []int

// Inc counts one more in bin k.
func (c Counts) Inc(k int) { c[k]++ }
