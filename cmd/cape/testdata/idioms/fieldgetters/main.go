// Command fieldgetters writes, in regions, through getters of its module's
// own package that return a slice field (solver.View(g)[i] = v,
// g.Vs()[i] = v): the field's memory goes to the arena. Both were refused
// as "a call of solver.View (another package's function)".
package main

import (
	"fmt"

	"github.com/cape-go/cape/cmd/cape/testdata/idioms/fieldgetters/solver"
)

func main() {
	n := 40
	g := &solver.Grid{Vals: make([]int, n)}
	//cape:parallel for
	for i := 0; i < n; i++ {
		solver.View(g)[i] = i * i
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		g.Vs()[i] += i % 3
	}
	fmt.Println(g.Vals)
}
