package translate

import (
	"strings"
	"testing"
)

// foreignLinalg is a package of the user's module with a matrix type:
// getters, a read-only row view, methods reading and writing through it,
// a value-receiver method called from pointer ones, an embedded shape,
// and a generic vector.
var foreignLinalg = map[string]string{
	"la/la.go": `package la

type Shape struct{ R, C int }

func (s Shape) Size() int { return s.R * s.C }

type Matrix struct {
	Shape
	Data []float64
}

type Plain struct {
	R, C int
	Data []float64
}

type Boxed struct {
	*Shape
	Data []float64
}

func (m Matrix) Rows() int                { return m.R }
func (m Matrix) VRow(i int) []float64     { return m.Data[i*m.C : (i+1)*m.C] }
func (m Matrix) VSet(i int, v float64)    { m.Data[i] = v }
func (m *Matrix) Cols() int               { return m.C }
func (m *Matrix) Len() int                { return len(m.Data) }
func (m *Matrix) Row(i int) []float64     { return m.Data[i*m.C : (i+1)*m.C] }
func (m *Matrix) At(i, j int) float64     { return m.Data[i*m.C+j] }
func (m *Matrix) Set(i, j int, v float64) { m.Data[i*m.C+j] = v }
func (m *Matrix) SetC(c int)              { m.C = c }
func (m *Matrix) First() float64          { return m.Data[0] }

func (p *Plain) Row(i int) []float64 { return p.Data[i*p.C : (i+1)*p.C] }
func (p *Plain) Cols() int           { return p.C }

func (b *Boxed) Set(i int, v float64) { b.C = i; b.Data[i] = v }

func Dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func Fill(x []float64, v float64) {
	for j := range x {
		x[j] = v
	}
}

func RowOf(m *Matrix, i int) []float64 { return m.Row(i) }

func Shift(dst, src []float64, i int) { dst[i] = src[i-1] }

func (m *Matrix) MulVecRow(x, y []float64, i int) { y[i] = Dot(m.Row(i), x) }

func (m *Matrix) SumRow(i int) float64 {
	s := 0.0
	for _, v := range m.Row(i)[1:] {
		s += v
	}
	return s + m.Row(i)[0]
}

func (m *Matrix) ScaleRow(i int, a float64) {
	if i >= m.Rows() || i >= m.Size() {
		return
	}
	for j := 0; j < m.C; j++ {
		m.Set(i, j, a*m.At(i, j))
	}
}

// Writes through a view: not followed.
func (m *Matrix) ZeroRow(i int) { m.Row(i)[0] = 0 }
func (m *Matrix) FillRow(i int) { Fill(m.Row(i), 1) }
func (m *Matrix) AliasRow(i int) {
	r := m.Row(i)
	r[0] = 1
}

// A view read where other iterations write: a loop-carried dependence.
func (m *Matrix) FromAbove(i int, x []float64) {
	if i > 0 {
		m.Set(i, 0, Dot(m.Row(i-1), x))
	}
}

// A view returned by a function literal, not by the method.
func (m *Matrix) Lit(i int) float64 {
	f := func() []float64 { return m.Data[i:] }
	f()[0] = 2
	return 0
}

// Grid's getters return its slice field.
type Grid struct{ Vals []float64 }

func (g *Grid) Vs() []float64   { return g.Vals }
func View(g *Grid) []float64      { return g.Vals }

type Vec[T ~float64 | ~int] struct{ D []T }

func (v *Vec[T]) Set(i int, x T) { v.D[i] = x }
func (v *Vec[T]) Get(i int) T    { return v.D[i] }

type Any[T any] struct{ D []T }

func (v *Any[T]) Set(i int, x T) { v.D[i] = x }

func (m Matrix) VAt(i int) float64 { return m.Data[i] }
func (m Matrix) VLen() int         { return len(m.Data) }

`,
	"lg/lg.go": `package lg

type M struct {
	C    int
	Data []float64
}

func (m *M) Row(i int) []float64 { return m.Data[i*m.C : (i+1)*m.C] }

func Fill(x []float64, v float64) {
	for j := range x {
		x[j] = v
	}
}

var Global = &M{C: 4, Data: make([]float64, 16)}

func TouchGlobal(i int) { Fill(Global.Row(i), 1) }
`,
}

// TestForeignViews checks the methods of another package that read
// through a view of their receiver's slice field (a row), that call a
// value-receiver method, or that read promoted fields: accepted, with the
// slice in the arena; writing through the view, reading one that other
// iterations write, or a loop bound that the loop's calls may change,
// refused.
func TestForeignViews(t *testing.T) {
	if exportImporter == nil {
		t.Fatal("no export importer installed")
	}
	cases := []struct{ name, head, body, want string }{
		{"row view read", "", "m.MulVecRow(x, y, i)", ""},
		{"row view ranged and indexed", "", "y[i] = m.SumRow(i)", ""},
		{"value receiver and promoted fields", "", "m.ScaleRow(i, 2)", ""},
		{"view through a function", "", "y[i] = la.Dot(la.RowOf(m, i), x)", ""},
		{"view handed to a writer in main", "", "la.Fill(m.Row(i), 1)", ""},
		{"generic vector", "", "v.Set(i, float64(i))", ""},
		{"getter written", "", "g.Vs()[i] = float64(i)", ""},
		{"function getter written", "", "la.View(g)[i] += 1", ""},
		{"getter read where an earlier iteration writes", "", "if i > 0 {\n\t\t\tg.Vs()[i] = g.Vals[i-1] + 1\n\t\t}", "is read in the parallel loop, and written by an earlier iteration"},
		{"value receiver read in main", "", "y[i] = float64(m.Rows() + mv.Rows())", ""},
		{"value receiver view read in main", "", "y[i] = la.Dot(mv.VRow(i), x)", "la.Matrix.VRow may write through the slices or pointers that mv holds"},
		// A value receiver's copy shares its slices with mv: its writes
		// through them are mv's, read for the loop's dependences.
		{"value receiver writing in main", "", "mv.VSet(i, 1)", ""},
		{"value receiver writing what an earlier iteration wrote", "", "if i > 0 {\n\t\t\tmv.VSet(i, mv.VAt(i-1)+1)\n\t\t}", "mv.VAt(i-1) reads m.Data[i] (at la.go:112) in the parallel loop, and written by an earlier iteration"},
		// Only a struct whose slices no other value shares: a copy, or
		// a slice handed to the literal, hides the dependences.
		{"value receiver writing a copy", "", "cp := mv\n\t\tif i > 0 {\n\t\t\tcp.VSet(i, mv.VAt(i-1)+1)\n\t\t}", "la.Matrix.VSet writes through the slices that cp holds"},
		{"value receiver writing a struct made in the loop", "", "lv := la.Matrix{Data: y}\n\t\tlv.VSet(i, 1)", "la.Matrix.VSet writes through the slices that lv holds"},
		{"value receiver writing a field", "", "g2 := struct{ M la.Matrix }{mv}\n\t\tg2.M.VSet(i, 1)", "la.Matrix.VSet writes through the slices that g2.M holds"},
		{"bound from a getter, value getter read", "i < m.Len()", "y[i] = m.VAt(i)", ""},
		{"bound from a value getter", "i < mv.VLen()", "mv.VSet(i, mv.VAt(i)+1)", ""},
		{"bound from a getter", "i < m.Cols()", "m.Set(0, i, 1)", ""},
		{"bound from len", "i < m.Len()", "m.Set(0, i%4, 1)", ""},
		{"bound from a getter, field written", "i < m.Cols()", "m.SetC(4)", "the loop's bound m.Cols() reads the field"},
		{"bound from a getter, unknown writes", "i < m.Cols()", "m.ZeroRow(i)", "the loop's bound m.Cols() reads the field"},
		{"bound from a getter reading elements", "i < int(m.First())", "y[i] = 1", "the loop condition calls m.First"},
		{"view written in the method", "", "m.ZeroRow(i)", "la.Matrix.ZeroRow may write through the slices or pointers that m holds"},
		{"view handed to a writer in the method", "", "m.FillRow(i)", "la.Matrix.FillRow may write through"},
		{"view kept in a variable and written", "", "m.AliasRow(i)", "la.Matrix.AliasRow may write through"},
		{"view from a literal", "", "y[i] = m.Lit(i)", "la.Matrix.Lit may write through"},
		{"view read where others write", "", "m.FromAbove(i, x)", "m.FromAbove(i, x) reads elements of what m refers to at places it does not write"},
		{"view written in main", "", "m.Row(i)[0] = 1", "a call of la.Matrix.Row (another package's function)"},
		{"view kept in main and written", "", "r := m.Row(i)\n\t\tr[0] = 1", "a call of la.Matrix.Row (another package's function)"},
		{"embedded pointer", "", "b.Set(i, 1)", "la.Boxed.Set may write through the slices or pointers that b holds"},
		{"generic vector of any", "", "w.Set(i, 1)", "la.Any.Set may write through the slices or pointers that w holds"},
		{"view of a package variable", "", "lg.TouchGlobal(i)", "changes lg.Global, a package variable"},
		// The accessors' bodies are read for the loop's dependences:
		// the element before, through the stride field m.C.
		{"accessors reading the row before", "", "if i > 0 {\n\t\t\tm.Set(i, 0, m.At(i-1, 0)+1)\n\t\t}", "m.At(i-1, 0) reads m.Data[i * m.C + j] (at la.go:28) in the parallel loop, and written by an earlier iteration"},
		{"accessors within a row", "", "for j := 1; j < n; j++ {\n\t\t\tm.Set(i, j, m.At(i, j-1)*2)\n\t\t}", ""},
		{"one slice handed twice", "", "if i > 0 {\n\t\t\tla.Shift(y, y, i)\n\t\t}", "la.Shift(y, y, i) reads src[i - 1]"},
		{"two slices handed", "", "if i > 0 {\n\t\t\tla.Shift(y, x, i)\n\t\t}", ""},
		{"a view of the row before", "", "if i > 0 {\n\t\t\tprev := m.Row(i - 1)\n\t\t\tfor j := 0; j < n; j++ {\n\t\t\t\tm.Set(i, j, prev[j]+1)\n\t\t\t}\n\t\t}", "prev[j] is read in the parallel loop, and written by an earlier iteration"},
		{"a view of its own row", "", "own := m.Row(i)\n\t\tfor j := 0; j < n; j++ {\n\t\t\tm.Set(i, j, own[j]*2)\n\t\t}", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := c.head
			if head == "" {
				head = "i < n"
			}
			err := translateModule(t, `package main

import (
	"fmt"

	"example.com/fm/la"
	"example.com/fm/lg"
)

var _ = lg.TouchGlobal

func main() {
	n := 4
	m := &la.Matrix{Shape: la.Shape{R: n, C: n}, Data: make([]float64, n*n)}
	mv := la.Matrix{Shape: la.Shape{R: n, C: n}, Data: make([]float64, n*n)}
	g := &la.Grid{Vals: make([]float64, n)}
	b := &la.Boxed{Shape: &la.Shape{R: n, C: n}, Data: make([]float64, n*n)}
	v := &la.Vec[float64]{D: make([]float64, n)}
	w := &la.Any[float64]{D: make([]float64, n)}
	x := make([]float64, n)
	y := make([]float64, n)
	//cape:parallel for
	for i := 0; `+head+`; i++ {
		`+c.body+`
	}
	fmt.Println(g.Vals, m.Data, mv.Data, b.Data, v.D, w.D, x, y)
}
`, foreignLinalg)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted; want an error with %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q; want %q", err, c.want)
			case c.want != "" && strings.Contains(err.Error(), "the same shared value"):
				t.Fatalf("error %q claims an update of a shared value", err)
			}
		})
	}
}

// TestForeignGetterMark checks that a write through another package's
// getter at a place two iterations share (g.Vs()[0]) is marked, as a
// write of g.Vals[0] is: the nodes' values there are compared.
func TestForeignGetterMark(t *testing.T) {
	out, err := translateModuleOut(t, `package main

import (
	"fmt"

	"example.com/fm/la"
)

func main() {
	g := &la.Grid{Vals: make([]float64, 4)}
	//cape:parallel for
	for i := 0; i < 8; i++ {
		g.Vs()[0] = float64(7 - i)
	}
	fmt.Println(g.Vals)
}
`, foreignLinalg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "cape.Mark(r, &g.Vs()[0])") {
		t.Fatalf("no mark of g.Vs()[0] in\n%s", out)
	}
}
