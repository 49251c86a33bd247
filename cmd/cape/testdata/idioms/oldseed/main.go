// Command oldseed is a module whose go line is 1.22: under go run its
// GODEBUG defaults are go 1.22's, where math/rand's Seed still seeds (go
// 1.24 made it do nothing). cape builds it with a newer language version,
// and must keep the module's defaults: the numbers drawn after Seed(42)
// are go run's.
package main

import (
	"fmt"
	"math/rand"
)

func main() {
	rand.Seed(42)
	n := 16
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(rand.Intn(1000))
	}
	y := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		y[i] = x[i] * 2
	}
	fmt.Println(y)
}
