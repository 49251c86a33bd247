package main

import (
	"fmt"
	"iter"
	"math/rand"
	"os"
	"slices"
)

// State of the process that an image does not hold, changed by a point's
// loop, is refused at the point: the position in standard input, the
// state of math/rand's own generator, a variable a closure keeps that
// another function made. Before the loop, or in a generator an iteration
// makes, they are the program's own business (math/rand's top-level
// functions in a region are refused: err_process.go).

func counter() func() int {
	c := 0
	return func() int { c += 3; return c }
}

func main() {
	n := 64
	u := make([]float64, n)
	var first float64
	fmt.Fscan(os.Stdin, &first) // before the loop: read once, in every run
	for s := 0; s < 10; s++ {
		//cape:checkpoint s, u // want "the loop at .* reads standard input \\(.*\\), whose state a point cannot save"
		var force float64
		fmt.Fscan(os.Stdin, &force)
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] = 0.9*u[i] + force + first*rand.New(rand.NewSource(int64(i))).Float64() // an iteration's own generator
		}
	}
	for s := 0; s < 10; s++ {
		//cape:checkpoint s, u // want "draws from math/rand's own generator \\(rand.Float64\\)"
		f := rand.Float64()
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] += f
		}
	}
	next := counter()
	for s := 0; s < 10; s++ {
		//cape:checkpoint s, u // want "calls a closure that changes c \\(.*\\), a variable of the function that made it"
		k := next()
		//cape:parallel for
		for i := 0; i < n; i++ {
			u[i] += float64(k)
		}
	}
	fmt.Println(u[0])
	pulled()
}

// pulled: a function value iter.Pull made keeps its generator's state.
func pulled() {
	u := make([]float64, 8)
	next, stop := iter.Pull(slices.Values([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}))
	defer stop()
	for s := 0; s < 10; s++ {
		//cape:checkpoint s, u // want "calls next, a function value iter.Pull made \\(.*\\), whose state a point cannot save"
		k, _ := next()
		//cape:parallel for
		for i := range u {
			u[i] += float64(k)
		}
	}
	fmt.Println(u[0])
}
