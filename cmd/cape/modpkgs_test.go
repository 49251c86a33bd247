package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gridPackage is a package of a user's module that main uses in a region:
// a type whose pointer method writes an element of its slice field, a
// constructor (that main does not call), and pure functions.
const gridPackage = `package grid

type Grid struct {
	N    int
	Vals []float64
}

func NewGrid(n int) *Grid { return &Grid{N: n, Vals: make([]float64, n)} }

func (g *Grid) Set(i int, v float64) { g.Vals[i] = v * Scale(i) }
func (g *Grid) Get(i int) float64    { return g.Vals[i] }

func Scale(i int) float64 { return float64(i%3 + 1) }

func Store(g *Grid, i int, v float64) { g.Vals[i] = 2 * v }

func (g Grid) Put(i int, v float64) { g.Vals[i] = v }

func (g *Grid) AddAt(i int, v float64) { g.Vals[i] += v }

func Hist(a []float64, i int) { a[i%4] += 1 }

func Bump(g *Grid) { g.N++ }

// Window is a view of element i, which Next only reads, and which Prev
// reads at i-1 where it writes i.
func (g *Grid) Window(i int) []float64 { return g.Vals[i : i+1] }

func Sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

func (g *Grid) Prev(i int) {
	if i > 0 {
		g.Vals[i] = Sum(g.Window(i-1)) + 1
	}
}

func (g *Grid) Sweep(i int) {
	if i > 0 && i < len(g.Vals)-1 {
		g.Vals[i] = 0.5 * (g.Vals[i-1] + g.Vals[i+1])
	}
}
`

// TestModulePackages runs a program whose region calls a method of a type
// of another package of its module, on a value main builds, and requires
// go run's output; built by that package's constructor, it is refused,
// naming the constructor.
func TestModulePackages(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	const inMain = "&grid.Grid{N: n, Vals: make([]float64, n)}"
	for _, c := range []struct{ name, make, call, refusal string }{
		{"made in main", inMain, "g.Set(i, float64(i)*0.5)", ""},
		{"a function's pointer argument", inMain, "grid.Store(g, i, float64(i))", ""},
		{"made by the constructor", "grid.NewGrid(n)", "g.Set(i, float64(i)*0.5)", "a call of grid.NewGrid (another package's function)"},
		// A value receiver is a copy whose slices are the shared ones: its
		// writes through them are the struct's, which main made.
		{"a value receiver", inMain, "g.Put(i, 1)", ""},
		// Updates: of each iteration's element, fine; of shared elements,
		// the merge stops the job; of a number field, refused.
		{"an update of the iteration's element", inMain, "g.AddAt(i, 0.5)", ""},
		{"a histogram", inMain, "grid.Hist(g.Vals, i)", "both updated element [0]"},
		{"a histogram in a helper", inMain, "step(g.Vals, i)", "both updated element [0]"},
		{"a counter field", inMain, "grid.Bump(g)", "grid.Bump updates a number field of g"},
		// Reading the neighbours it and other iterations write: refused.
		{"a carried sweep", inMain, "g.Sweep(i)", "g.Sweep(i) reads elements of what g refers to at places it does not write"},
		// A view only read: followed; read where the method writes: refused.
		{"a view read", inMain, "g.Set(i, grid.Sum(g.Window(i))+1)", ""},
		{"a view read where it writes", inMain, "g.Prev(i)", "g.Prev(i) reads elements of what g refers to at places it does not write"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"go.mod":       "module example.com/modpkgs\n\ngo 1.26\n",
				"grid/grid.go": gridPackage,
				"main.go": `package main

import (
	"fmt"

	"example.com/modpkgs/grid"
)

func main() {
	n := 5000
	g := ` + c.make + `
	//cape:parallel for
	for i := 0; i < n; i++ {
		` + c.call + `
	}
	s := 0.0
	for i := 0; i < n; i++ {
		s += g.Get(i) * float64(i%7)
	}
	fmt.Printf("%.3f\n", s)
}

func step(a []float64, i int) { grid.Hist(a, i) }
`,
			}
			for name, text := range files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := goRunOutput(t, dir, nil, nil)
			for _, nodes := range []string{"2", "3"} {
				var stdout, stderr bytes.Buffer
				err := run([]string{"run", "-n", nodes, dir}, &stdout, &stderr)
				switch {
				case c.refusal != "" && (err == nil || !strings.Contains(stderr.String()+err.Error(), c.refusal)):
					t.Fatalf("cape run -n %s: %v, stderr %s; want a refusal with %q", nodes, err, stderr.String(), c.refusal)
				case c.refusal != "":
					return
				case err != nil:
					t.Fatalf("cape run -n %s: %v\n%s", nodes, err, stderr.String())
				case stdout.String() != want:
					t.Errorf("cape run -n %s printed %q; go run printed %q", nodes, stdout.String(), want)
				}
			}
		})
	}
}
