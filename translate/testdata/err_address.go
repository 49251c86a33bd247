package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// A slice given its value through its address, where the analysis cannot
// follow the store (a decoder of another package, a pointer that goes
// further), cannot be placed in the arena: refused, naming the call.

//go:embed err_address.go
var raw []byte // want "raw is written through in the parallel region at err_address.go:[0-9]+, but its value here comes from the file //go:embed puts in the program's data, which CAPE cannot place in the arena; copy it"

type holder struct{ dst *[]float64 }

func (h holder) fill(n int) { *h.dst = make([]float64, n) }

func keep(p *[]float64) *[]float64 { return p }

type vec []float64

func (v *vec) resize(n int) { *v = make(vec, n) }

type sim struct{ x vec }

type embeds struct {
	vec
	t float64
}

type resizer interface{ resize(int) }

func prepare(r resizer, n int) { r.resize(n) }

func alloc[T any](n int) []T { return make([]T, n) }

var initial = func() []float64 {
	b := make([]float64, 6)
	for i := range b {
		b[i] = 1
	}
	return b
}()

func loadVals(n int) ([]float64, error) {
	v := make([]float64, n)
	return v, nil
}

func main() {
	var vals []float64
	if err := json.Unmarshal([]byte(`[1,2,3]`), &vals); err != nil { // want "vals is written through in the parallel region at err_address.go:[0-9]+, but its value here comes from json.Unmarshal, given its address at err_address.go:[0-9]+"
		panic(err)
	}
	var c []float64
	h := holder{dst: &c} // want "c is written through in the parallel region at err_address.go:[0-9]+, but its value here comes from a store through its address"
	h.fill(3)
	var d []float64
	q := keep(&d) // want "d is written through .* keep, given its address"
	*q = make([]float64, 3)
	var s sim
	s.x.resize(3) // want "s.x.resize gives s.x a new value through its address, which CAPE follows only for a variable"
	var w vec
	f := w.resize // want "w is written through .* the method value w.resize, which holds its address"
	f(3)
	var e embeds
	e.resize(3) // want "e.resize gives e.vec a new value through its address, which CAPE follows only for a variable"
	var u vec
	prepare(&u, 3) // want "u is written through .* prepare, given its address"
	//cape:parallel for
	for i := 0; i < 3; i++ {
		vals[i] *= 2
		c[i] = 1
		d[i] = 2
		w[i] = 3
		u[i] = 4
	}
	// A prefix of the slice's own array: its make is placed.
	cs := make([]float64, 6)
	cs = slices.Delete(slices.Compact(cs), 0, 0)
	// Made by a local function literal: its make is placed.
	mk := func(n int) []float64 { return make([]float64, n) }
	ms := mk(6)
	//cape:parallel for
	for i := 0; i < len(cs); i++ {
		cs[i] += 2
		ms[i] = cs[i]
	}
	// One of several results: of a function of the package, placed; of
	// another package's, refused naming it.
	tv, err := loadVals(6)
	read, _ := os.ReadFile("in.txt") // want "read is written through in the parallel region at err_address.go:[0-9]+, but its value here comes from a call of os.ReadFile \\(another package's function\\), which CAPE cannot place in the arena; make it in this package"
	// A generic allocator instantiated with numbers only, and a literal
	// called where it stands: their makes are placed.
	gm := alloc[float64](6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		gm[i] = 1
		initial[i] += 2
		tv[i] = float64(i)
		read[i] = 'x'
		raw[i] = 'y'
	}
	fmt.Println(vals, c, d, s, w, e, u, cs, ms, tv, err, read, raw, gm, initial)
}
