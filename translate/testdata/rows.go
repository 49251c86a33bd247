package main

import "fmt"

type Grid struct {
	N    int
	V    []float64
	Rows [][]float64
	Acc  [4]int64
}

func NewGrid(n int) *Grid {
	g := &Grid{N: n, V: make([]float64, n*n)}
	g.Rows = make([][]float64, n)
	for i := range g.Rows {
		g.Rows[i] = g.V[i*n : (i+1)*n]
	}
	return g
}

// Step writes the grid's slices in a method.
func (g *Grid) Step() {
	//cape:parallel for
	for i := 0; i < g.N; i++ {
		g.V[i*g.N] = float64(i)
		scale(g.Rows[i], 2)
	}
}

func sum(r []float64) float64 {
	s := 0.0
	for _, x := range r {
		s += x
	}
	return s
}

func scale(r []float64, f float64) {
	for j := range r {
		r[j] *= f
	}
}

func main() {
	n, m := 4, 3
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, m)
	}
	back := make([]float64, n*m)
	b := make([][]float64, n)
	for i := range b {
		b[i] = back[i*m : (i+1)*m]
	}
	var g [8][8]float64
	out := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			a[i][j] = float64(i + j)
			b[i][j] = 2 * a[i][j]
		}
		g[i][i] = 1
		scale(b[i], 0.5)
		out[i] = sum(a[i])
	}
	grid := NewGrid(n)
	grid.Step()
	grid.Count()
	private(a)
	byValue(b)
	privateRow(a)
	fmt.Println(appended(n))
	fmt.Println(a, b, g[1][1], out, grid.V[n], grid.Rows[1])
}

// private keeps rows made in the region in a container of its own: they
// never reach shared memory.
func private(a [][]float64) {
	//cape:parallel for
	for i := range a {
		tmp := make([][]float64, 2)
		tmp[0] = make([]float64, len(a[i]))
		tmp[0][0] = 1
		a[i][0] = tmp[0][0]
	}
}

// byValue ranges over the rows: writes through the range value are writes
// to the rows.
func byValue(a [][]float64) {
	//cape:parallel for
	for i, row := range a {
		for j := range row {
			row[j] += float64(i)
		}
	}
}

// privateRow writes the rows through a private slice variable.
func privateRow(a [][]float64) {
	var row []float64
	//cape:parallel for private(row)
	for i := 0; i < len(a); i++ {
		row = a[i]
		row[0] = 3
	}
}

// appended builds its rows with append: the rows go to the arena, the
// outer slice, which the region only reads, stays on the Go heap.
func appended(n int) [][]float64 {
	var rows [][]float64
	for i := 0; i < n; i++ {
		rows = append(rows, make([]float64, 4))
	}
	//cape:parallel for
	for _, row := range rows {
		row[0] = 1
	}
	return rows
}

// Count writes the grid's own array: the grid itself moves to the arena
// (&Grid{...} in NewGrid becomes cape.New).
func (g *Grid) Count() {
	//cape:parallel sections
	{
		//cape:section
		{
			g.Acc[0] = int64(len(g.V))
		}
		//cape:section
		{
			g.Acc[1] = int64(len(g.Rows))
		}
	}
}
