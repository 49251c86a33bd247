package main

import "fmt"

// Memory an iteration makes for itself stays where Go puts it, whatever
// methods or addresses it is used with: only shared memory moves to the
// arena.

type xorshift struct{ s uint64 }

func (x *xorshift) next() uint64 {
	x.s ^= x.s << 13
	x.s ^= x.s >> 7
	x.s ^= x.s << 17
	return x.s
}

func (x *xorshift) float() float64 { return float64(x.next()>>11) / (1 << 53) }

func newXorshift(i int) xorshift { return xorshift{s: uint64(i)*2654435761 + 1} }

// sample's generator is its own, whoever calls it.
func sample(i int) float64 {
	g := xorshift{s: uint64(i) + 7}
	return g.float()
}

// fill writes through its pointer: the arrays of the iterations that call
// it stay private; out, made before the region, moves to the arena.
func fill(w *[4]float64, i int) {
	for k := range w {
		w[k] = float64(i + k)
	}
}

// An acc is made in each iteration; add writes shared memory through its
// field out, and the acc itself through the receiver.
type acc struct {
	out []float64
	n   int
}

func (a *acc) add(i int, x float64) {
	a.out[i] += x
	a.n++
}

// divisors builds its result with append: memory its caller, in the
// region, owns.
func divisors(i int) []int {
	var ds []int
	for d := 1; d <= i; d++ {
		if i%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds
}

// scratch returns memory that its caller, in the region, owns.
func scratch() *[8]float64 {
	var b [8]float64
	return &b
}

func main() {
	const n = 16
	out := make([]float64, n)
	total := 0.0
	//cape:parallel for reduction(+:total)
	for i := 0; i < n; i++ {
		rng := xorshift{s: uint64(i) + 1}
		r := newXorshift(i)
		var work [8]float64
		p := &work
		for k := 0; k < 8; k++ {
			p[k%8] += rng.float() + r.float()
		}
		var w [4]float64
		fill(&w, i)
		a := acc{out: out}
		a.add(i, w[3]+sample(i))
		s := scratch()
		s[0] = float64(a.n)
		total += work[0] + s[0]
	}
	fmt.Println(total, out)
	appends(out)
}

// appends builds slices in each iteration with append and composite
// literals: they stay private; the append onto a slice of out writes out,
// which moves to the arena.
func appends(out []float64) {
	sums := make([]int, len(out))
	//cape:parallel for schedule(dynamic)
	for i := 0; i < len(out); i++ {
		ds := append(divisors(i), i)
		acc := []int{1}
		for _, d := range ds {
			acc = append(acc, d)
		}
		s := 0
		for _, d := range acc {
			s += d
		}
		sums[i] = s
		tail := out[i:i]
		tail = append(tail, float64(len(tail)+s))
	}
	fmt.Println(sums, out)
}
