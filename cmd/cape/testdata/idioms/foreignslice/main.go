// Command foreignslice writes, in regions, through value-receiver methods
// of named slice types of another package: its own package's vec.Vector
// (Axpy by blocks) and the standard library's sort.Float64Slice (each row
// sorted). The slices must move to the arena: the slaves' writes were lost
// with exit status 0.
package main

import (
	"fmt"
	"sort"

	"github.com/cape-go/cape/cmd/cape/testdata/idioms/foreignslice/vec"
)

func main() {
	n, nb := 64, 8
	bs := n / nb
	x := make(vec.Vector, n)
	y := make(vec.Vector, n)
	for i := range x {
		x[i] = float64(i % 7)
	}
	//cape:parallel for
	for b := 0; b < nb; b++ {
		y[b*bs:(b+1)*bs].Axpy(2, x[b*bs:(b+1)*bs])
	}
	a := make([]float64, 48)
	for i := range a {
		a[i] = float64((i * 7) % 5)
	}
	//cape:parallel for
	for i := 0; i < 12; i++ {
		sort.Float64Slice(a[i*4 : (i+1)*4]).Sort()
	}
	fmt.Println(y.Norm2(), y[:8], a)
}
