package main

import "fmt"

// Generic containers made in generic code live in the arena when their
// type parameter may only be number types; a type parameter that may be
// anything may hold references.

type Number interface{ ~float64 | ~int }

type Mat[T Number] struct {
	d    []T
	r, c int
}

func NewMat[T Number](r, c int) *Mat[T] { return &Mat[T]{d: make([]T, r*c), r: r, c: c} }

func (m *Mat[T]) Set(i, j int, v T) { m.d[i*m.c+j] = v }

type Box[T any] struct{ v []T }

func NewBox[T any](n int) *Box[T] { return &Box[T]{v: make([]T, n)} }

func (b *Box[T]) Put(i int, x T) { b.v[i] = x } // want "field v .as in b.v. is written in the parallel region, but its memory .made at err_generic.go:[0-9]+. holds values of type parameter T .constrain it to number types"

// A constraint is the intersection of its elements: one that allows
// only numbers is enough; comparable alone allows strings and pointers.
type Vec[T interface {
	~float64
	comparable
}] struct{ v []T }

func NewVec[T interface {
	~float64
	comparable
}](n int) *Vec[T] {
	return &Vec[T]{v: make([]T, n)}
}

type Keys[T comparable] struct{ v []T }

func NewKeys[T comparable](n int) *Keys[T] { return &Keys[T]{v: make([]T, n)} }

func (k *Keys[T]) Put(i int, x T) { k.v[i] = x } // want "field v .as in k.v. is written in the parallel region, but its memory .made at err_generic.go:[0-9]+. holds values of type parameter T"

func main() {
	// Instantiated with types that hold references too: the type
	// parameter's values may be references.
	_, _ = NewBox[*int](1), NewKeys[string](1)
	a := NewMat[float64](8, 8)
	//cape:parallel for
	for i := 0; i < a.r; i++ {
		for j := 0; j < a.c; j++ {
			a.Set(i, j, float64(i*j))
		}
	}
	b := NewBox[int](8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		b.Put(i, i)
	}
	c := NewVec[float64](8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		c.v[i] = float64(i) / 2
	}
	k := NewKeys[int](8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		k.Put(i, i)
	}
	fmt.Println(a.d[9], b.v[3], c.v[3], k.v[2])
}

// A reduction variable of a type parameter is reduced as each type its
// constraint lists would be: all of them must allow the operator.

type Integer interface{ ~int | ~int64 | ~uint8 }

type Real interface{ Integer | ~float64 }

func dot[T Number](a, b []T) T {
	var s T
	//cape:parallel for reduction(+:s)
	for i := 0; i < len(a); i++ {
		s += a[i] * b[i]
	}
	return s
}

func spread[T Real](a []T) (T, T) {
	var hi, top T
	//cape:parallel for reduction(max:hi, top)
	for i := range a {
		hi = max(hi, a[i])
		if a[i] > top { // want "top is a max reduction variable of the parallel loop, compared here to keep the larger value: on a floating-point variable"
			top = a[i]
		}
	}
	return hi, top
}

func flags[T Integer](a []T) (T, T) {
	var or, top T
	//cape:parallel for reduction(|:or) reduction(max:top)
	for i := range a {
		or |= a[i]
		if a[i] > top {
			top = a[i]
		}
	}
	return or, top
}

func bitsOfReal[T Real](a []T) T {
	var or T
	//cape:parallel for reduction(|:or) // want "reduction.\\|:\\.\\.\\.. needs an integer variable, or has type T"
	for i := range a {
		or += a[i]
	}
	return or
}

func anything[T any](a []T) T {
	var s T
	//cape:parallel for reduction(+:s) // want "reduction variable s has type T; want an integer, floating-point, complex or boolean type, an array or slice of one, or a type parameter constrained to such types"
	for i := range a {
		s = a[i]
	}
	return s
}

func textual[T ~int | ~string](a []T) T {
	var s T
	//cape:parallel for reduction(+:s) // want "reduction variable s has type T; want an integer"
	for i := range a {
		s += a[i]
	}
	return s
}
