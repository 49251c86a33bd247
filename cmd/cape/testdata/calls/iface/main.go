// Command iface calls an interface method in a parallel loop; every type
// that implements the interface is in this package, and the one used writes
// a shared slice.
package main

import (
	"fmt"
	"sort"
)

type kernel interface {
	apply(i int)
}

type scale struct{ k float64 }

func (s scale) apply(i int) {}

type squares []float64

func (s squares) apply(i int) { s[i] = float64(i * i) }

type cubes []int32

func (c cubes) apply(i int) { c[i] = int32(i * i * i) }

// desc sorts in decreasing order; sort.Sort calls its methods, which CAPE
// walks: Swap writes the slice.
type desc []int32

func (d desc) Len() int           { return len(d) }
func (d desc) Less(i, j int) bool { return d[i] > d[j] }
func (d desc) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }

func run(n int, k kernel) {
	//cape:parallel for
	for i := 0; i < n; i++ {
		k.apply(i)
	}
}

func main() {
	n := 21
	sq := make([]float64, n)
	cu := make([]int32, n)
	var k kernel = squares(sq)
	//cape:parallel for
	for i := 0; i < n; i++ {
		k.apply(i)
	}
	run(n, cubes(cu))
	run(n, scale{2})
	//cape:parallel for
	for i := 0; i < n/3; i++ {
		sort.Sort(desc(cu[3*i : 3*i+3]))
	}
	fmt.Println(sq, cu)
}
