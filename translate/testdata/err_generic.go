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
