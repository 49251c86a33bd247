// Command grid runs a heat-diffusion stencil on a Grid, a struct whose
// fields are slices and an array, built by a constructor and stepped by a
// method holding the parallel region: the object-oriented layout, annotated
// for CAPE unchanged.
//
// The translator follows the fields: every value stored into Grid.Cur,
// Grid.Next and Grid.Rows (in NewGrid, and the swap in Step) is placed in
// the arena. Step also writes the grid's own array field Band, so the Grid
// itself is allocated in the arena too (&Grid{...} becomes cape.New).
package main

import (
	"flag"
	"fmt"
	"math"
)

// Grid is an n×m grid of temperatures.
type Grid struct {
	N, M      int
	Cur, Next []float64
	Rows      [][]float64 // the rows of Cur, for readers
	Band      [8]float64  // the largest change in each band of rows, last step
}

// NewGrid returns a grid whose top edge is held at 1.
func NewGrid(n, m int) *Grid {
	g := &Grid{N: n, M: m, Cur: make([]float64, n*m), Next: make([]float64, n*m)}
	for j := range m {
		g.Cur[j], g.Next[j] = 1, 1
	}
	g.Rows = make([][]float64, n)
	g.pointRows()
	return g
}

// pointRows makes Rows the rows of Cur.
func (g *Grid) pointRows() {
	for i := range g.Rows {
		g.Rows[i] = g.Cur[i*g.M : (i+1)*g.M]
	}
}

// Step updates every inner point and returns the largest change.
func (g *Grid) Step() float64 {
	diff := 0.0
	//cape:parallel for schedule(static) reduction(max:diff)
	for b := 0; b < len(g.Band); b++ {
		lo, hi := max(1, b*g.N/len(g.Band)), min(g.N-1, (b+1)*g.N/len(g.Band))
		band := 0.0
		for i := lo; i < hi; i++ {
			for j := 1; j < g.M-1; j++ {
				k := i*g.M + j
				x := 0.25 * (g.Cur[k-g.M] + g.Cur[k+g.M] + g.Cur[k-1] + g.Cur[k+1])
				band = max(band, math.Abs(x-g.Cur[k]))
				g.Next[k] = x
			}
		}
		g.Band[b] = band
		diff = max(diff, band)
	}
	g.Cur, g.Next = g.Next, g.Cur
	g.pointRows()
	return diff
}

// rowSum is the sum of one row.
func rowSum(row []float64) float64 {
	s := 0.0
	for _, x := range row {
		s += x
	}
	return s
}

func main() {
	n := flag.Int("n", 120, "rows")
	m := flag.Int("m", 90, "columns")
	steps := flag.Int("steps", 20, "steps")
	flag.Parse()
	g := NewGrid(*n, *m)
	var diff float64
	for range *steps {
		diff = g.Step()
	}
	var sum, weighted float64
	for i, row := range g.Rows {
		s := rowSum(row)
		sum += s
		weighted += s * float64(i+1)
	}
	fmt.Printf("grid %d×%d, %d steps: last change %.9f sum %.9f weighted %.9f band %.9f\n",
		*n, *m, *steps, diff, sum, weighted, g.Band)
}
