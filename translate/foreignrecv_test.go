package translate

import (
	"strings"
	"testing"
)

// foreignParticles is a package of the user's module with slices of
// structs of numbers (Pos []Vec3) read and written by its methods, an
// element's pointer method, and a grid whose two slice fields a method
// swaps.
var foreignParticles = map[string]string{
	"part/part.go": `package part

type Vec3 struct{ X, Y, Z float64 }

func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }
func (a *Vec3) Inc()           { a.X++ }

type State struct{ Pos, Vel []Vec3 }

type System struct {
	State
	M []float64
}

func (s *System) N() int                { return len(s.Pos) }
func (s *System) Plain(i int) float64   { return s.Pos[i].X + s.M[i] }
func (s *System) Sum(i int) Vec3        { return s.Pos[i].Add(s.Pos[i]) }
func (s *System) Kick(i int, f Vec3)    { s.Vel[i] = s.Vel[i].Add(f) }
func (s *System) SetY(i int)            { s.Pos[i].Y = 2 * s.Pos[i].X }
func (s *System) Smooth(i int)          { s.Pos[i].X = s.Pos[i-1].X + 1 }
func (s *System) Forward(i int)         { s.Pos[i+1].X = s.Pos[i].X }
func (s *System) Bump(i int)            { s.Pos[i].Inc() }

type G struct{ Cur, Next, Spare []float64 }

func (g *G) Then() []float64 { return g.Next }
func (g *G) Swap()           { g.Cur, g.Next = g.Next, g.Cur }
`,
}

// TestForeignStructElems checks the methods of another package over
// slices of structs of numbers (s.Pos[i].X read, s.Vel[i] assigned, an
// element handed to a value-receiver method): accepted; an element read
// where another iteration writes, or handed to a pointer method, refused.
func TestForeignStructElems(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"fields of elements read", "out[i] = s.Plain(i) + s.Sum(i).X", ""},
		{"element assigned", "s.Kick(i, part.Vec3{X: 1})", ""},
		{"element's field assigned", "s.SetY(i)", ""},
		{"element before read", "if i > 0 {\n\t\t\ts.Smooth(i)\n\t\t}", "reads elements of what s refers to at places it does not write"},
		{"element after written", "if i < n-1 {\n\t\t\ts.Forward(i)\n\t\t}", "reads elements of what s refers to at places it does not write"},
		{"element's pointer method", "s.Bump(i)", "part.System.Bump may write through the slices or pointers that s holds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := translateModule(t, `package main

import (
	"fmt"

	"example.com/fm/part"
)

func main() {
	n := 8
	s := &part.System{State: part.State{Pos: make([]part.Vec3, n), Vel: make([]part.Vec3, n)}, M: make([]float64, n)}
	out := make([]float64, n)
	//cape:parallel for
	for i := 0; i < s.N(); i++ {
		`+c.body+`
	}
	fmt.Println(s.Pos, s.Vel, out)
}
`, foreignParticles)
			checkRefusal(t, err, c.want)
		})
	}
}

// TestForeignFieldCopies checks that a field of another package that one
// of its methods assigns another field's value (g.Cur, g.Next = g.Next,
// g.Cur) holds the memory made for either, in the arena; a field that
// method copies from a field the package makes memory for is refused.
func TestForeignFieldCopies(t *testing.T) {
	cases := []struct{ name, pkg, want string }{
		{"fields swapped", "", ""},
		{"a field given made memory", "\nfunc (g *G) Take() { g.Spare = make([]float64, len(g.Cur)); g.Cur = g.Spare }\n", "field Spare of package part, which that package sets"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkgs := map[string]string{"part/part.go": foreignParticles["part/part.go"] + c.pkg}
			err := translateModule(t, `package main

import (
	"fmt"

	"example.com/fm/part"
)

func main() {
	n := 8
	g := &part.G{Cur: make([]float64, n), Next: make([]float64, n)}
	for step := 0; step < 3; step++ {
		//cape:parallel for
		for i := 0; i < n; i++ {
			g.Then()[i] = g.Cur[i] + 1
		}
		g.Swap()
	}
	fmt.Println(g.Cur)
}
`, pkgs)
			checkRefusal(t, err, c.want)
		})
	}
}

// TestForeignHeld checks that a struct made in the loop body, whose slice
// field is the shared one, written through by another package's method,
// has the shared slice placed in the arena: the nodes' writes were lost.
func TestForeignHeld(t *testing.T) {
	for _, body := range []string{"lp := &la.Matrix{Data: y}\n\t\tlp.Set(0, i, 1)", "lp := &la.Matrix{}\n\t\tlp.Data = y\n\t\tlp.Set(0, i, 1)"} {
		out, err := translateModuleOut(t, `package main

import (
	"fmt"

	"example.com/fm/la"
)

func main() {
	n := 4
	y := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		`+body+`
	}
	fmt.Println(y)
}
`, foreignLinalg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "y := cape.Make[float64](n)") {
			t.Fatalf("y is not placed in the arena:\n%s", out)
		}
	}
}

// checkRefusal fails t unless err is nil where want is "", or holds want.
func checkRefusal(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("refused: %v", err)
	case want != "" && err == nil:
		t.Fatalf("accepted; want an error with %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q; want %q", err, want)
	}
}
