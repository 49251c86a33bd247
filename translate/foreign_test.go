package translate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// foreignKern is a package of the user's module whose functions change its
// package variables directly, through a method, through a local alias,
// through another package of the module, or not at all.
var foreignKern = map[string]string{
	"kern/draw.go": `package kern

import (
	"fmt"
	"math/rand"
)

// Draw and Read use state each process holds: math/rand's generator and
// the standard input's position.
func Draw(x float64) float64 { return x * rand.Float64() }
func Read(x float64) float64 {
	var v float64
	fmt.Scan(&v)
	return x + v
}
`,
	"kern/kern.go": `package kern

import (
	"sync"

	"example.com/fm/tally"
)

var total float64
var hist = make([]int, 8)
var once sync.Once
var mu sync.Mutex
var table []float64

type Acc struct{ n int }

var acc Acc

func (a *Acc) add() { a.n++ }

func Add(x float64) float64  { total += x; return x }
func Bump(x float64) float64 { acc.add(); return x }
func Bin(x float64) float64  { h := hist; h[int(x)%8]++; return x }
func Far(x float64) float64  { tally.Count(); return x }
func Pure(x float64) float64 { return helper(x) * 2 }
func helper(x float64) float64 {
	mu.Lock()
	defer mu.Unlock()
	return x + 1
}
func Lazy(x float64) float64 {
	once.Do(func() { table = make([]float64, 4) })
	return x + float64(len(table))
}
func Total() float64 { return total }

// Ping changes total after calling Pong, which calls it back: asked about
// first, Ping meets Pong, which meets Ping again before its change.
func Ping(x float64) float64 { y := Pong(x - 1); total += y; return y }
func Pong(x float64) float64 {
	if x > 0 {
		return Ping(x)
	}
	return x
}

// Table, Shared and Box are package variables main writes directly.
var Table [8]int
var Shared = make([]float64, 8)
var Box Acc

func (a *Acc) Put(i int) { a.n = i }

// Look reads a package table through a pointer method that only reads.
type lookup struct{ w []float64 }

var tbl = &lookup{w: []float64{1, 2, 3}}

func (t *lookup) at(i int) float64 { return t.w[i%len(t.w)] }
func Look(x float64) float64    { return tbl.at(int(x)) * x }

// Changes through a helper, a getter's result, a function variable and a
// channel (campaign 15).
var cells = make([]float64, 8)
var setter = func(i int, v float64) { cells[i%8] = v }
var ch = make(chan float64, 1000)

func fill(s []float64, i int, v float64) { s[i%8] = v }
func get() []float64                     { return cells }
func ViaHelper(x float64) float64        { fill(cells, int(x), x); return x }
func ViaGetter(x float64) float64 { get()[int(x)%8] = x; return x }
func ViaFuncVar(x float64) float64 { setter(int(x), x); return x }
func ViaChan(x float64) float64    { ch <- x; return x }
func ViaCopy(x float64) float64    { copy(get(), []float64{x}); return x }

// M keeps a count behind a package pointer variable.
type meter struct{ n float64 }

var M = &meter{}

func (m *meter) Tick(x float64) float64 { m.n += x; return m.n }
`,
	"tally/tally.go": `package tally

var n int

func Count() { n++ }
`,
}

// TestForeignState checks that a region calling a function of another
// package of the user's module that changes a package variable is refused,
// naming the variable and where it changes, and that one that only reads,
// locks or initialises once is not.
func TestForeignState(t *testing.T) {
	if exportImporter == nil {
		t.Fatal("no export importer installed")
	}
	cases := []struct{ call, want string }{
		{"kern.Add", "changes kern.total, a package variable (kern/kern.go:21:"},
		{"kern.Bump", "changes kern.acc, a package variable (kern/kern.go:22:"},
		{"kern.Bin", "changes kern.hist, a package variable (kern/kern.go:23:"},
		{"kern.Far", "changes tally.n, a package variable (tally/tally.go:5:"},
		{"fv", "kern.Add (through fv) in the parallel region changes kern.total"},
		{"kern.Ping(1) + kern.Pong", "kern.Pong in the parallel region changes kern.total"},
		{"kern.Pure", ""},
		// What sync.Once runs may depend on the iteration that runs it first.
		{"kern.Lazy", "changes kern.table, a package variable"},
		{"kern.Look", ""},
		{"kern.ViaHelper", "changes kern.cells, a package variable"},
		{"kern.ViaGetter", "writes through the result of get()"},
		{"kern.ViaFuncVar", "calls setter, a function value or interface method CAPE cannot follow"},
		{"kern.ViaChan", "changes kern.ch, a package variable"},
		{"kern.ViaCopy", "writes through the result of get()"},
		{"kern.Draw", "kern.Draw in the parallel region draws from math/rand's one generator (rand.Float64), whose state is the process's (kern/draw.go:10:"},
		{"kern.Read", "kern.Read in the parallel region reads the standard input (fmt.Scan), whose position is the process's (kern/draw.go:13:"},
	}
	for _, c := range cases {
		t.Run(c.call, func(t *testing.T) {
			err := translateWithKern(t, `package main

import (
	"fmt"

	"example.com/fm/kern"
)

var fv = kern.Add

func main() {
	y := make([]float64, 100)
	//cape:parallel for
	for i := 0; i < 100; i++ {
		y[i] = `+c.call+`(float64(i))
	}
	fmt.Println(y[99], kern.Total())
}
`)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted; want an error with %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q; want %q", err, c.want)
			case c.want != "" && !strings.Contains(err.Error(), "main.go:15:10"):
				t.Fatalf("error %q is not at the call, main.go:15:10", err)
			}
		})
	}
}

// TestForeignStateAtPoint checks that a checkpoint point is refused when
// its loop's sequential code calls a function of another package that
// changes a package variable, which the image cannot hold.
func TestForeignStateAtPoint(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{"kern.Add", "calls kern.Add (main.go:17), which changes kern.total"},
		{"kern.Pure", ""},
		{"kern.M.Tick", "calls meter.Tick on kern.M, another package's variable (main.go:17), whose state a point cannot save"},
	} {
		t.Run(c.call, func(t *testing.T) {
			err := translateWithKern(t, `package main

import (
	"fmt"

	"example.com/fm/kern"
)

func main() {
	u := make([]float64, 64)
	for it := 0; it < 10; it++ {
		//cape:checkpoint it, u
		//cape:parallel for
		for i := 0; i < 64; i++ {
			u[i] += float64(i)
		}
		_ = `+c.call+`(u[3])
	}
	fmt.Println(u[63], kern.Total())
}
`)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v; want one with %q", err, c.want)
			}
		})
	}
}

// translateWithKern translates mainSrc, the main package of a module
// that also holds foreignKern's packages, and returns the translation's
// error.
func translateWithKern(t *testing.T, mainSrc string) error {
	t.Helper()
	return translateModule(t, mainSrc, foreignKern)
}

// translateModule translates mainSrc, the main package of the module
// example.com/fm, whose other files are pkgs (path to text).
func translateModule(t *testing.T, mainSrc string, pkgs map[string]string) error {
	t.Helper()
	_, err := translateModuleOut(t, mainSrc, pkgs)
	return err
}

// translateModuleOut is translateModule, returning the translation of
// main.go.
func translateModuleOut(t *testing.T, mainSrc string, pkgs map[string]string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/fm\n\ngo 1.26\n", "main.go": mainSrc}
	for k, v := range pkgs {
		files[k] = v
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &Config{NewImporter: exportImporter}
	res, err := cfg.Files(dir, []string{filepath.Join(dir, "main.go")}, nil)
	if err != nil {
		return "", err
	}
	return string(res.Files[filepath.Join(dir, "main.go")]), nil
}

// TestForeignVariables checks that a region's own writes to another
// package's variables (an array element, through a slice, a struct's
// pointer method) are refused: each node would write its own copy.
func TestForeignVariables(t *testing.T) {
	for _, body := range []string{"kern.Table[i] = i", "kern.Shared[i] = 1", "kern.Box.Put(i)"} {
		t.Run(body, func(t *testing.T) {
			err := translateWithKern(t, `package main

import (
	"fmt"

	"example.com/fm/kern"
)

func main() {
	//cape:parallel for
	for i := 0; i < 8; i++ {
		`+body+`
	}
	fmt.Println(kern.Table, kern.Shared)
}
`)
			if err == nil || !strings.Contains(err.Error(), "belongs to package kern") {
				t.Fatalf("error %v; want one saying the variable belongs to package kern", err)
			}
		})
	}
}

// TestPointFieldSource checks that a slice a point names, taken from a
// struct's field (u := s.T), has the make stored into that field placed in
// the arena, where the image holds it; it was a run-time error at the
// point ("points outside the arena").
func TestPointFieldSource(t *testing.T) {
	src := `package main

import "fmt"

type Sim struct{ T []float64 }

func main() {
	n := 100
	s := &Sim{T: make([]float64, n)}
	u := s.T
	for it := 0; it < 3; it++ {
		//cape:checkpoint it, u
		next := make([]float64, n)
		//cape:parallel for
		for i := 0; i < n; i++ {
			next[i] = u[i] + 1
		}
		u = next
	}
	fmt.Println(u[0])
}
`
	out, err := translateMain(t, &Config{Importer: testImporter(t)}, src)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "T: cape.Make[float64](n)") {
		t.Fatalf("the field's make is not placed:\n%s", out)
	}
}

// TestForeignRandom checks that the main package's sequential code calling
// (or naming) a function of another package that draws from a generator of
// the process's own is refused, naming the draw, as is such a draw when a
// package starts; a seeded generator, or a draw inside a region, is not.
func TestForeignRandom(t *testing.T) {
	gen := `package gen

import (
	"math/rand/v2"
	"sort"
)

type G struct{ r *rand.Rand }

func Fill(s []float64) {
	for i := range s {
		s[i] = rand.Float64()
	}
}
func Noise(x float64) float64 { return x + noise() }
func noise() float64          { return rand.NormFloat64() }
func New() *G                 { return &G{r: rand.New(rand.NewPCG(1, 2))} }
func (g *G) Fill(s []float64) {
	for i := range s {
		s[i] = g.r.Float64()
	}
}
func (g *G) Shuffle(s []float64) { rand.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] }) }
func Keys(m map[string]int) (ks []string) {
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
func SortedKeys(m map[string]int) []string {
	ks := Keys(m)
	sort.Strings(ks)
	return ks
}
`
	cases := []struct{ name, pre, body, extra, want string }{
		{"direct", "gen.Fill(a)", "a[i] *= 2", "", "gen.Fill, outside the parallel regions, draws numbers of this process's own (rand.Float64 at gen/gen.go:12:"},
		{"helper", "a[0] = gen.Noise(1)", "a[i] *= 2", "", "gen.Noise, outside the parallel regions, draws numbers of this process's own (rand.NormFloat64 at gen/gen.go:16:"},
		{"method", "gen.New().Shuffle(a)", "a[i] *= 2", "", "gen.G.Shuffle, outside the parallel regions, draws numbers of this process's own (rand.Shuffle at gen/gen.go:23:"},
		{"value", "apply(a, gen.Noise)", "a[i] *= 2", "", "gen.Noise, outside the parallel regions, draws"},
		{"seeded", "gen.New().Fill(a)", "a[i] *= 2", "", ""},
		{"in region", "", "a[i] = gen.Noise(float64(i))", "", ""},
		{"init", "", "a[i] = gen.Noise(float64(i))", "var seed = rand.Uint64()\n", "package example.com/fm/gen, as it starts, draws numbers of this process's own (rand.Uint64 at gen/gen.go:"},
		{"map order", "a[0] = float64(len(gen.Keys(map[string]int{\"x\": 1, \"y\": 2})[0]))", "a[i] *= 2", "", "gen.Keys, outside the parallel regions, appends to ks in the order of a range over a map (gen/gen.go:26:"},
		{"map sorted here", "ks := gen.Keys(map[string]int{\"x\": 1, \"y\": 2})\n\tslices.Sort(ks)\n\ta[0] = float64(len(ks[0]))", "a[i] *= 2", "", ""},
		{"map sorted", "a[0] = float64(len(gen.SortedKeys(map[string]int{\"x\": 1, \"y\": 2})[0]))", "a[i] *= 2", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := translateModule(t, `package main

import (
	"fmt"
	"slices"

	"example.com/fm/gen"
)

var _ = slices.Sort[[]int]

func apply(s []float64, f func(float64) float64) {
	for i := range s {
		s[i] = f(s[i])
	}
}

func main() {
	a := make([]float64, 8)
	`+c.pre+`
	//cape:parallel for
	for i := range a {
		`+c.body+`
	}
	fmt.Println(a)
}
`, map[string]string{"gen/gen.go": gen + c.extra})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("want an error with %q, got %v", c.want, err)
			}
		})
	}
}

// TestForeignMarks checks the marks of places a method of another package
// assigns in every call through a receiver that is one place for every
// iteration: an exported field is marked by name, an unexported one
// through the whole struct (or refused where too big to compare); a
// receiver of the iteration's own, a write under a condition or after a
// return, are not marked.
func TestForeignMarks(t *testing.T) {
	st := `package st

type S struct {
	Last int
	Buf  []int
	seen int
}

type Big struct {
	hidden int
	pad    [1024]int
}

func (s *S) Note(v int)  { s.Last = v; s.Buf[0] = v }
func (s *S) Hide(v int)  { s.seen = v }
func (b *Big) Hide(v int) { b.hidden = v }
func (s *S) Maybe(v int) {
	if v > 3 {
		s.Last = v
	}
}
func (s *S) Late(v int) {
	if v > 3 {
		return
	}
	s.Last = v
}
`
	cases := []struct{ body, want, err string }{
		{"s.Note(i)", "Mark(r, &(s).Last)|Mark(r, &(s).Buf[0])", ""},
		{"s.Hide(i)", "Mark(r, (s))", ""},
		{"b.Hide(i)", "", "st.Big.Hide writes b.hidden (st/st.go:16:"},
		{"ss[i].Note(i)", "", ""},
		{"s.Maybe(i)", "", ""},
		{"s.Late(i)", "", ""},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			out, err := translateModuleOut(t, `package main

import (
	"fmt"

	"example.com/fm/st"
)

func main() {
	s := &st.S{Buf: make([]int, 1)}
	b := &st.Big{}
	ss := make([]st.S, 8)
	for i := range ss {
		ss[i].Buf = make([]int, 1)
	}
	//cape:parallel for
	for i := 0; i < 8; i++ {
		`+c.body+`
	}
	fmt.Println(s.Last, b, len(ss))
}
`, map[string]string{"st/st.go": st})
			switch {
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want an error with %q, got %v", c.err, err)
				}
				return
			case err != nil:
				t.Fatalf("translate: %v", err)
			case c.want == "" && strings.Contains(out, ".Mark("):
				t.Fatalf("marked:\n%s", out)
			}
			for _, w := range strings.Split(c.want, "|") {
				if !strings.Contains(out, w) {
					t.Fatalf("want %q in:\n%s", w, out)
				}
			}
		})
	}
}
