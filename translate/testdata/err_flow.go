package main

import "fmt"

// A parallel loop reading an element of a shared array that an earlier
// iteration writes (a loop-carried flow dependence) is refused where the
// indices are the loop variable plus constants. Reading what a later
// iteration writes (the value before the region, as sequentially), another
// array, or elements of another stride, is not.

func main() {
	n := 64
	a := make([]float64, n)
	b := make([]float64, n)
	c := make([]float64, n)
	d := make([]float64, n)
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, 4)
	}
	//cape:parallel for
	for i := 1; i < n-1; i++ {
		a[i] = (a[i-1] + a[i+1]) / 2 // want "a.i-1. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		b[i] = b[i+1] + c[i] // the value before the region, as sequentially
	}
	//cape:parallel for
	for i := 0; i < n-2; i += 2 {
		c[i+1] = c[i] * 2 // iteration i-2 wrote c[i-1]: another stride
	}
	//cape:parallel for
	for i := n - 2; i >= 0; i-- {
		d[i] += d[i+1] // want "d.i\\+1. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < 4; j++ {
			g[i][j] = g[i-1][j] + 1 // want "g.i-1..j. is read in the parallel loop, and written by an earlier iteration"
		}
	}
	e := make([]float64, 2*n+2)
	//cape:parallel for
	for i := 1; i <= n; i++ {
		e[2*i] = e[2*i-2] + 3 // want "e.2.i-2. is read in the parallel loop, and written by an earlier iteration"
	}
	f := b // the same array
	//cape:parallel for
	for i := 1; i < n; i++ {
		b[i] = f[i-1] + 1 // want "f.i-1. is read in the parallel loop, and written by an earlier iteration .b.i. at"
	}
	s := &holder{data: make([]float64, n)}
	//cape:parallel for
	for i := 1; i < n; i++ {
		s.data[i] = s.data[i-1] + 1 // want "s.data.i-1. is read in the parallel loop"
	}
	var h [8]float64
	for it := 0; it < 2; it++ {
		prev := h // a copy: another array
		//cape:parallel for
		for i := 1; i < 8; i++ {
			h[i] = prev[i-1] + 1
		}
	}
	fmt.Println(a, b, c, d, g, e, s.data, h)
	flattened(n)
}

// Flattened rows and sub-slices: the indices are polynomials in the loop
// variable, variables the loop does not assign and inner loops' counters.
func flattened(n int) {
	u := make([]float64, n*n)
	v := make([]float64, n*n)
	//cape:parallel for
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			u[i*n+j] = (u[(i-1)*n+j] + u[(i+1)*n+j] + u[i*n+j-1]) / 3 // want "u..i-1..n\\+j. is read in the parallel loop, and written by an earlier iteration"
		}
	}
	//cape:parallel for
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			k := i*n + j
			v[k] = u[k-n] + u[k+n] + v[k] + v[k+n] + v[k-1] // another array, the same element, a later row, this row
		}
	}
	w := u[1:] // w[x] is u[x+1]
	//cape:parallel for
	for i := 1; i < n; i++ {
		u[i] = w[i-2] + 1 // want "w.i-2. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		u[i] = w[i-1] + w[i] // u[i], u[i+1]: this iteration, a later one
	}
	row := 7
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < n; j++ {
			v[j*n+i] = v[j*n+i-1] * 0.5 // want "v.j.n\\+i-1. is read in the parallel loop, and written by an earlier iteration"
		}
		u[row*n+i] = v[row] // another array
	}
	fmt.Println(u[3], v[5], w[2])
	helpers(n)
}

var cols = 16

func at(i, j int) int                { return i*cols + j }
func get(a []float64, k int) float64 { return a[k] }
func set(a []float64, k int, x float64) {
	a[k] = x
}

// Indices and accesses through the package's functions: parameters stand
// for their arguments.
func helpers(n int) {
	a := make([]float64, n)
	g := make([]float64, n*cols)
	//cape:parallel for
	for i := 1; i < n; i++ {
		a[i] = get(a, i-1) + 1 // want "get.a, i-1. reads a.k. .at err_flow.go:[0-9]+. in the parallel loop, and written by an earlier iteration .a.i. at"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		set(a, i, a[i-1]*2) // want "a.i-1. is read in the parallel loop, and written by an earlier iteration .set.a, i, a.i-1.\\*2. writing a.k. at"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < cols; j++ {
			g[at(i, j)] = g[at(i-1, j)] + 1 // want "g.at.i-1, j.. is read in the parallel loop"
		}
	}
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		for j := 0; j < cols; j++ {
			g[at(i, j)] = g[at(i+1, j)] + get(a, i) + get(a, i+1) // a later row; another array
		}
	}
	fmt.Println(a[3], g[5])
	neighbours(n)
}

type cell struct{ v, w float64 }

func (c *cell) from(o *cell) { c.v = o.v + 1 }
func (c *cell) own()         { c.w = c.v * 2 }

// Methods on elements (the receiver and pointer parameters stand for the
// elements they point to), and copy between windows.
func neighbours(n int) {
	cs := make([]cell, n)
	a := make([]float64, n)
	//cape:parallel for
	for i := 1; i < n; i++ {
		cs[i].from(&cs[i-1]) // want "cs.i..from..cs.i-1.. reads o.v .at err_flow.go:[0-9]+. in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		cs[i].own()
		cs[i].from(&cs[i+1]) // a later element: the value before the region
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		copy(a[i:i+1], a[i-1:i]) // want "copy.a.i:i\\+1., a.i-1:i.. reads a.i-1:i."
	}
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		copy(a[i:i+1], a[i+1:i+2])
	}
	fmt.Println(cs[2], a[3])
	ranged(n)
}

// The range value is a read of the element at the loop variable, over a
// slice or a pointer to an array; over an array, of a copy.
func ranged(n int) {
	a := make([]int, n)
	var arr [8]int
	//cape:parallel for
	for i, v := range a[:n-1] { // want "v is read in the parallel loop, and written by an earlier iteration .a.i\\+1. at"
		a[i+1] = v + 1
	}
	//cape:parallel for
	for i, v := range &arr { // want "v is read in the parallel loop"
		if i < 7 {
			arr[i+1] = v * 2
		}
	}
	//cape:parallel for
	for i, v := range arr {
		if i < 7 {
			arr[i+1] = v * 3 // a copy: the values before the loop, as sequentially
		}
	}
	//cape:parallel for
	for i, v := range a {
		if i > 0 {
			a[i-1] = v // a later iteration reads what this one does not write
		}
	}
	fmt.Println(a[2], arr)
	notDependent(n)
}

type pair struct{ a, b float64 }

// Race-free loops that look like dependences: a red-black sweep (the
// colour tested by a remainder, or chosen by the inner loop's start),
// other fields of the element before, and offsets past the loop's trips.
func notDependent(n int) {
	u := make([]float64, n*n)
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, n)
	}
	for color := 0; color < 2; color++ {
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			for j := 1; j < n-1; j++ {
				if (i+j)%2 == color {
					u[i*n+j] = 0.25 * (u[(i-1)*n+j] + u[(i+1)*n+j] + u[i*n+j-1] + u[i*n+j+1])
				}
			}
		}
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			for j := 1 + (i+color)%2; j < n-1; j += 2 {
				g[i][j] = 0.25 * (g[i-1][j] + g[i+1][j] + g[i][j-1] + g[i][j+1])
			}
		}
	}
	ps := make([]pair, n)
	//cape:parallel for
	for i := 1; i < n; i++ {
		ps[i].a = ps[i-1].b + 1 // another field
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		ps[i].b = ps[i-1].b + 1 // want "ps.i-1..b is read in the parallel loop"
	}
	const half = 32
	h := make([]float64, 2*half)
	//cape:parallel for
	for i := 0; i < half; i++ {
		h[i+half] = h[i] * 2 // iteration i-half would write h[i]: there is none
	}
	//cape:parallel for
	for i := 0; i < half+1; i++ {
		h[i+half-1] = h[i] * 2 // want "h.i. is read in the parallel loop"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < n; j++ {
			g[i][j] = g[i-1][j] * 0.5 // want "g.i-1..j. is read in the parallel loop"
		}
	}
	fmt.Println(u[5], g[1][1], ps[3], h[3])
	samePlace(n)
}

// An element written at the same place by every iteration, or by one.
func samePlace(n int) {
	a := make([]float64, n)
	b := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		if i == 0 {
			a[0] = 5
		}
		b[i] = a[0] + 1 // want "a.0. is read in the parallel loop, and written by another iteration .a.0. at"
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		b[i] = a[n-1] + 1 // the last iteration writes it: every read is before
		if i == n-1 {
			a[n-1] = 5
		}
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		b[i] = a[1] * 2 // want "a.1. is read in the parallel loop, and written by another iteration"
		a[1] = float64(i)
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[2] = float64(i)
		b[i] = a[2] * 2 // this iteration's own write
	}
	fmt.Println(a, b)
	counters(n)
}

// Counters of inner loops on one side only, or at other values on each.
func counters(n int) {
	a := make([]int, n)
	y := make([]float64, n)
	c := []float64{0.5, 0.25, 0.125}
	u := make([]float64, n*8)
	//cape:parallel for
	for i := 2; i < n; i++ {
		s := 0
		for d := 1; d <= 2; d++ {
			s += a[i-d] // want "a.i-d. is read in the parallel loop"
		}
		a[i] = s
	}
	//cape:parallel for
	for i := 3; i < n; i++ {
		acc := 1.0
		for k := 0; k < len(c); k++ {
			acc += c[k] * y[i-1-k] // want "y.i-1-k. is read in the parallel loop"
		}
		y[i] = acc
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < 8; j++ {
			u[i*8+j] = u[(i-1)*8+j+1] + 1 // want "u..i-1.\\*8\\+j\\+1. is read in the parallel loop"
		}
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < i && j < 8; j++ {
			u[i*8+j] = u[(i-1)*8+j] + 1 // want "u..i-1.\\*8\\+j. is read in the parallel loop"
		}
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		for j := 0; j < 8; j++ {
			u[i*8+j] += float64(j) // each iteration its own row
		}
	}
	fmt.Println(a, y, u[9])
	closuresAndMethods(n)
}

type grid struct {
	u []int
	n int
}

func (g *grid) step(i int)  { g.u[i] = g.u[i-1] + 2 }
func (g *grid) scale(i int) { g.u[i] = g.u[i] * 2 }

// Accesses through a closure held by a variable, and through a method
// on a shared struct.
func closuresAndMethods(n int) {
	a := make([]int, n)
	at := func(j int) int { return a[j] }
	//cape:parallel for
	for i := 1; i < n; i++ {
		a[i] = at(i-1) + 2 // want "at.i-1. reads a.j. .at err_flow.go:[0-9]+. in the parallel loop"
	}
	g := &grid{u: make([]int, n), n: n}
	//cape:parallel for
	for i := 1; i < g.n; i++ {
		g.step(i) // want "g.step.i. reads g.u.i-1. .at err_flow.go:[0-9]+. in the parallel loop"
	}
	//cape:parallel for
	for i := 0; i < g.n; i++ {
		g.scale(i)
		a[i] = at(i)
	}
	fmt.Println(a[3], g.u[3])
	rowAlias(n)
}

// A row read whole, then its elements through a local.
func rowAlias(n int) {
	g := make([][]int, n)
	for i := range g {
		g[i] = make([]int, n)
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		row := g[i-1] // want "g.i-1. is read in the parallel loop, and written by an earlier iteration .g.i..j. at"
		for j := 0; j < n; j++ {
			g[i][j] = row[j] + 1
		}
	}
	fmt.Println(g[1][1])
	parities(n)
}

func colour(i, j int) int { return (i + j) & 1 }

// Under a remainder guard, a write and a read both run only where their
// residues agree: a distance of 1 under %2 never, of 2 always.
func parities(n int) {
	a := make([]float64, n)
	for c := 0; c < 2; c++ {
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			if i%2 != c {
				continue
			}
			a[i] = 0.5 * (a[i-1] + a[i+1]) // the other colour
		}
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			if i&1 == c {
				a[i] = 0.5 * (a[i-1] + a[i+1])
			}
		}
	}
	//cape:parallel for
	for i := 2; i < n; i++ {
		if i%2 == 0 {
			a[i] = a[i-2] + a[i] // want "a.i-2. is read in the parallel loop"
		}
	}
	//cape:parallel for
	for i := 2; i < n; i++ {
		if i&1 == 1 {
			continue
		}
		a[i] = a[i-2] + 1 // want "a.i-2. is read in the parallel loop"
	}
	//cape:parallel for
	for i := 3; i < n; i++ {
		if i%3 != 0 {
			a[i] = a[i-1] + 1 // want "a.i-1. is read in the parallel loop"
		}
	}
	u := make([]float64, n*n)
	for c := 0; c < 2; c++ {
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			for j := 1; j < n-1; j++ {
				col := (i + j) % 2
				if col == c {
					u[i*n+j] = 0.25 * (u[(i-1)*n+j] + u[i*n+j+1])
				}
			}
		}
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			for j := 1; j < n-1; j++ {
				if colour(i, j) == c {
					u[i*n+j] += u[(i-1)*n+j]
				}
			}
		}
	}
	m := 4
	b := make([]float64, n*m)
	//cape:parallel for
	for i := 1; i < n; i++ {
		copy(b[i*m:(i+1)*m], b[(i-1)*m:i*m]) // want "copy.b.i.m:.i\\+1..m., b..i-1..m:i.m.. reads"
	}
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		copy(b[i*m:(i+1)*m], b[(i+1)*m:(i+2)*m]) // the row after: its value before the region
	}
	fmt.Println(a[2], b[5])
}

type holder struct{ data []float64 }

// offsets holds indices that differ by variables: a distance the
// translator cannot tell is refused, one at least the loop's span is not;
// and inner counters whose values differ on the two sides.
func offsets(n, off int) {
	a := make([]float64, 2*n+1)
	//cape:parallel for
	for i := 1; i < n; i++ {
		a[i] = a[i+off] + 1 // want "a.i\\+off. is read in the parallel loop, and may be written by another iteration .a.i. at err_flow.go:.*the distance between them, off, is not a constant"
	}
	lo, hi := a[:n], a[n:]
	//cape:parallel for
	for i := 0; i < n; i++ {
		hi[i] = lo[i] * 2 // the other half: never another iteration's
	}
	//cape:parallel for
	for i := range n {
		a[i+n] += a[i]
	}
	u := make([]float64, n*n)
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 1; j < n; j++ {
			if (i+j)%2 == 0 {
				u[i*n+j] += u[(i-1)*n+j-1] // want "u..i-1..n\\+j-1. is read in the parallel loop, and written by an earlier iteration"
			}
		}
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < n-1; j++ {
			u[i*n+j] = u[(i-1)*n+j+1] + 1 // want "u..i-1..n\\+j\\+1. is read in the parallel loop, and written by an earlier iteration"
		}
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 1; j < n; j++ {
			if (i+j)%2 == 0 {
				u[i*n+j] += u[(i-1)*n+j] // the other colour
			}
		}
	}
}

// wavefront reads the previous anti-diagonal: i·n − i moves by n − 1 a
// step, never onto another iteration's element.
func wavefront(n int) {
	u := make([]int, n*n)
	for d := 2; d <= 2*(n-1); d++ {
		lo := max(1, d-(n-1))
		hi := min(n-1, d-1)
		//cape:parallel for
		for i := lo; i <= hi; i++ {
			j := d - i
			u[i*n+j] = (u[(i-1)*n+j] + u[i*n+j-1]) % 1000003
		}
	}
}

// rings reads around a ring: the iterations that wrap read what the first
// ones wrote (in place), or another array.
func rings(n int) {
	a := make([]int, n)
	b := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = a[i] * 2
		b[i] = a[(i+1)%n] // want "a..i\\+1..n. is read in the parallel loop, and written by an earlier iteration .a.i. at err_flow.go:[0-9]+.: the index wraps around"
	}
	//cape:parallel for
	for i := range n {
		a[i] += a[(i+n-1)%n] // want "a..i\\+n-1..n. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		b[i] = a[(i+1)%n] + a[(i+n-1)%n] // another array: no dependence
	}
}

// halves keeps two grids in one slice at offsets the translator cannot
// tell: listed in shared, they are the program's to keep apart.
func halves() {
	n := 3000
	u := make([]float64, 2*n)
	for t := 0; t < 30; t++ {
		src := (t % 2) * n
		dst := n - src
		//cape:parallel for shared(u)
		for i := 1; i < n-1; i++ {
			u[dst+i] = 0.5 * (u[src+i-1] + u[src+i+1])
		}
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			u[dst+i] = 0.5 * (u[src+i-1] + u[src+i+1]) // want "the distance between them, 2.src - 3001, is not a constant.*list the array in shared"
		}
	}
}

// known reads at an offset held by a local assigned once: its value is the
// distance.
func known(n int) {
	a := make([]int, n)
	off := 1
	ahead := 2
	//cape:parallel for
	for i := off; i < n-ahead; i++ {
		a[i] = a[i-off] + a[i+ahead] // want "a.i-off. is read in the parallel loop, and written by an earlier iteration"
	}
}

// fixed reads one element that an iteration of the loop writes: the
// iterations after it read its new value.
func fixed(n int) {
	a := make([]int, n)
	b := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = a[0] + a[i] + 1 // want "a.0. is read in the parallel loop, and written by an earlier iteration .a.i. at err_flow.go:[0-9]+.: a loop-carried dependence"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		b[i] = b[0] + 1 // b[0] is no iteration's
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		for k := 0; k < 3; k++ {
			b[i] += a[k] // another array
		}
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		s := 0
		for k := 0; k < 3; k++ {
			s += b[k] // want "b.k. is read in the parallel loop, and written by an earlier iteration"
		}
		b[i] = s
	}
}

// columns sweeps each column down its rows (the dependence is the inner
// loop's), and writes one half of a slice from the other, with bounds
// that are locals assigned once.
func columns() {
	n := 60
	a := make([]int, n*n)
	//cape:parallel for
	for j := 0; j < n; j++ {
		for i := 1; i < n; i++ {
			a[i*n+j] = a[(i-1)*n+j] + i + j
		}
	}
	m := 500
	b := make([]int, 2*m)
	hi := b[m:]
	//cape:parallel for
	for i := 0; i < m; i++ {
		hi[i] = b[i] + 1
	}
}

func dot(a, b []int64) int64 {
	var s int64
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

func total(a []int64) int64 {
	var s int64
	for k := range a {
		s += a[k]
	}
	return s
}

// windows hands a function windows of the array the loop writes: the
// earlier iterations' elements (refused), or the iteration's own row.
func windows(n int) {
	const m = 4
	x := make([]int64, n*m)
	r := make([]int64, n)
	//cape:parallel for
	for i := 3; i < n; i++ {
		x[i] = x[i] * 2
		r[i] = dot(x[i-3:i+1], x[i-3:i+1]) // want "dot.x.i-3:i.1., x.i-3:i.1.. reads a.k. .at err_flow.go:[0-9]+. in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		row := x[i*m : (i+1)*m]
		for j := range row {
			row[j] = int64(i + j)
		}
		r[i] = total(row) + total(x[i*m:i*m+m])
	}
}

// stepped reads through a local stepped from the loop variable.
func stepped(n int) {
	a := make([]int, n)
	b := make([]int, n)
	//cape:parallel for
	for i := 1; i < n; i++ {
		j := i
		j--
		a[i] = a[j] + 1 // want "a.j. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		j := i
		j++
		b[i] = b[j] + 1 // the next element: its value from before the region, as go run reads it
		j -= 1
		b[j] += 2
	}
}

func squares(a []int64) int64 {
	var s int64
	for k := 0; k < len(a); k++ {
		s += a[k] * a[k]
	}
	return s
}

// twice calls a function that reads a window twice: its loop's counter
// counted once.
func twice(n int) {
	x := make([]int64, n)
	r := make([]int64, n)
	//cape:parallel for
	for i := 3; i < n; i++ {
		x[i] = x[i] * 2
		r[i] = squares(x[i-3:i+1]) + squares(x[i-3:i+1]) // want "squares.x.i-3:i.1.. reads a.k. .at err_flow.go:[0-9]+. in the parallel loop, and written by an earlier iteration"
	}
}

// blocks: a block's first element read from the previous block's last,
// which that block's inner loop writes at its counter's last value; a
// block that reads only its own elements is race-free.
func blocks(n, bs int) {
	x := make([]int, n)
	//cape:parallel for
	for b := 0; b < n/bs; b++ {
		lo := b * bs
		if lo > 0 {
			x[lo] += x[lo-1] // want "x.lo-1. is read in the parallel loop, and written by an earlier iteration .x.k."
		}
		for k := lo + 1; k < lo+bs; k++ {
			x[k] += x[k-1]
		}
	}
	y := make([]int, n)
	//cape:parallel for
	for b := 0; b < n/bs; b++ {
		for k := b*bs + 1; k < b*bs+bs; k++ {
			y[k] += y[k-1]
		}
	}
	// A blocked prefix sum's first pass: each block its own elements.
	sums := make([]int, n/bs)
	//cape:parallel for
	for b := 0; b < n/bs; b++ {
		s := 0
		for i := b * bs; i < min(n, (b+1)*bs); i++ {
			s += y[i]
			y[i] = s
		}
		sums[b] = s
	}
}

// moduli: a ring whose modulus is less than the loop's count wraps onto
// elements earlier iterations wrote; a larger one never wraps.
func moduli() {
	n, m, big := 4000, 1000, 5000
	a := make([]int, n+big)
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = a[(i+1)%m] + 1 // want "a..i.1..m. is read in the parallel loop, and written by an earlier iteration .a.i. at err_flow.go:[0-9]+.: the index wraps"
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = a[(i+1)%big] + 1
	}
}

// A row-major matrix whose row length is a field of the struct holding
// it: the field is the same symbol in the loop and in the methods it
// calls.
type matrix struct {
	r, c int
	data []float64
}

func (m *matrix) at(i, j int) float64     { return m.data[i*m.c+j] }
func (m *matrix) set(i, j int, v float64) { m.data[i*m.c+j] = v }
func (m *matrix) row(i int) []float64     { return m.data[i*m.c : (i+1)*m.c] }

func fieldStrides(n int) {
	m := &matrix{r: n, c: 4, data: make([]float64, n*4)}
	//cape:parallel for
	for i := 1; i < n; i++ {
		m.data[i*m.c] = m.data[(i-1)*m.c] + 1 // want "m.data..i-1..m.c. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		m.set(i, 0, m.at(i-1, 0)+1) // want "m.at.i-1, 0. reads m.data.i.m.c.j. .at err_flow.go:[0-9]+. in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		prev := m.row(i - 1)
		for j := 0; j < m.c; j++ {
			m.set(i, j, prev[j]+1) // want "prev.j. is read in the parallel loop, and written by an earlier iteration"
		}
	}
	// Within a row: an iteration's own elements.
	//cape:parallel for
	for i := 0; i < n; i++ {
		for j := 1; j < m.c; j++ {
			m.data[i*m.c+j] += m.data[i*m.c+j-1]
			m.set(i, j, m.at(i, j)*2)
		}
	}
}

// A window of a shared struct's field, or a method returning one, is that
// field's array at an offset.
type field struct {
	n int
	v []float64
}

func (g *field) interior() []float64 { return g.v[1 : g.n-1] }
func (g *field) all() []float64      { return g.v }

func fieldWindows(n int) {
	g := &field{n: n, v: make([]float64, n)}
	w := g.v[1:]
	//cape:parallel for
	for i := 0; i < n-1; i++ {
		w[i] = g.v[i] * 2 // want "g.v.i. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 0; i < n-2; i++ {
		g.interior()[i] = g.all()[i] * 2 // want "g.all...i. is read in the parallel loop, and written by an earlier iteration"
	}
	//cape:parallel for
	for i := 0; i < n-2; i++ {
		w[i] = g.v[i+2] * 2 // the element after: its value before the region, as go run reads it
	}
}

// Two variables scaling the loop variable may be equal: the write and the
// read may meet.
func twoStrides(n int) {
	rowLen, stride := n, n
	a := make([]float64, n*n)
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < rowLen; j++ {
			a[i*stride+j] = a[(i-1)*rowLen+j] + 1 // want "a..i-1..rowLen.j. is read in the parallel loop, and may be written by another iteration .a.i.stride.j. at err_flow.go:[0-9]+.: the distance between them, i.rowLen - i.stride - rowLen, is not a constant"
		}
	}
}
