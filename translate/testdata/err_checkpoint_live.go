package main

import (
	"fmt"
	"math/rand"
)

// A point that leaves out state its loop carries from one pass to the next
// is refused: a restart from an image taken at a later pass would resume
// with the first pass's values.
func main() {
	n := 64
	u := make([]float64, n)
	energy := 0.0
	count := 0
	rng := rand.New(rand.NewSource(1))
	var hist []float64
	var diff float64
	for it := 0; it < 10; it++ {
		//cape:checkpoint it, u, hist // want "energy is live here and the loop at .* changes it" "count is live here" "rng \\(\\*math/rand.Rand\\) is used in the loop" "hist \\(\\[\\]float64\\) cannot be saved: it grows by append"
		diff = 0
		off := rng.Intn(10)
		var s float64
		//cape:parallel for reduction(+:s) reduction(max:diff)
		for i := 0; i < n; i++ {
			u[i] = u[i]*0.5 + float64(i%8+off)
			s += u[i]
			diff = max(diff, u[i])
		}
		energy += s
		count++
		hist = append(hist, s)
	}
	fmt.Println(energy, count, len(hist), diff, n)
	run()
}

// total is a package variable the loop below changes.
func steps() {
	for s := 0; s < 4; s++ {
		//cape:checkpoint s // want "total is live here and the loop at .* changes it"
		total += float64(s)
		w := make([]float64, 8)
		//cape:parallel for
		for i := range w {
			w[i] = total
		}
	}
}

var total float64

// simulate runs twice: an image of its second call would be restored in
// its first.
func simulate(u []float64, steps int) {
	for s := 0; s < steps; s++ {
		//cape:checkpoint s, u // want "//cape:checkpoint in simulate, which may run more than once \\(2 calls"
		//cape:parallel for
		for i := range u {
			u[i] = u[i]*0.5 + 1
		}
	}
}

// once runs once, from main's own code: its point is accepted.
func once(u []float64) {
	for s := 0; s < 3; s++ {
		//cape:checkpoint s, u
		//cape:parallel for
		for i := range u {
			u[i] += 1
		}
	}
}

func init() {
	u := make([]float64, 8)
	simulate(u, 2)
	simulate(u, 3)
	steps()
}

func run() {
	u := make([]float64, 8)
	once(u)
	f := func() {
		for s := 0; s < 3; s++ {
			//cape:checkpoint s // want "//cape:checkpoint in a function literal"
			//cape:parallel for
			for i := range u {
				u[i] += 2
			}
		}
	}
	f()
	relax()
	relaxValues()
}

// acc is a package variable changed only by functions the loop below
// calls, two calls deep.
var acc float64

func add(x float64) { acc += x }

func bump(w []float64) { add(w[0]) }

func relax() {
	w := make([]float64, 8)
	for s := 0; s < 3; s++ {
		//cape:checkpoint s, w // want "acc is live here and the loop at .* changes it"
		//cape:parallel for
		for i := range w {
			w[i] += 1
		}
		bump(w)
	}
	fmt.Println(acc)
}

// tally is a package variable changed only through a function value and
// an interface method that the loop below calls.
var tally float64

type counter interface{ count(w []float64) }

type byFirst struct{}

func (byFirst) count(w []float64) { tally += w[0] }

var account = func(w []float64) { var c counter = byFirst{}; c.count(w) }

func relaxValues() {
	w := make([]float64, 8)
	for s := 0; s < 3; s++ {
		//cape:checkpoint s, w // want "tally is live here and the loop at .* changes it"
		//cape:parallel for
		for i := range w {
			w[i] += 1
		}
		account(w)
	}
	fmt.Println(tally)
}
