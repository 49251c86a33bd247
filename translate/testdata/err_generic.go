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

func main() {
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
	fmt.Println(a.d[9], b.v[3])
}
