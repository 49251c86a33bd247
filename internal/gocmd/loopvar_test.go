package gocmd

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCapturesIn: a loop variable captured by a function literal that
// outlives the call site, or whose address is taken, is found; one used by
// a literal called where it stands, or not used, is not.
func TestCapturesIn(t *testing.T) {
	src := `package p

func f(xs []int, done chan int) {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i }) // 1
	}
	for _, v := range xs {
		go func() { done <- v }() // 2: a goroutine outlives the iteration
	}
	var ps []*int
	for k := range xs {
		ps = append(ps, &k) // 3
	}
	for j := 0; j < 3; j++ {
		func() { _ = j }() // called at once
		s := func(a int) int { return a * 2 }
		_ = s(j)
	}
	for i := 0; i < 3; i++ {
		i := i // a copy per iteration: the idiom before go 1.22
		fs = append(fs, func() int { return i })
		go func(i int) { done <- i }(i) // its own parameter
	}
	_, _ = fs, ps
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, p := range capturesIn(f, pkgFuncs{}) {
		lines = append(lines, fset.Position(p).Line)
	}
	if len(lines) != 3 || lines[0] != 6 || lines[1] != 9 || lines[2] != 13 {
		t.Errorf("captures at lines %v, want [6 9 13]", lines)
	}
}

// TestLoopvarCaptures walks a module's files, leaving out tests, testdata
// and nested modules, and names each place.
func TestLoopvarCaptures(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) { writeFile(t, root, rel, text) }
	capture := "package p\n\nfunc f() (fs []func() int) {\n\tfor i := 0; i < 3; i++ {\n\t\tfs = append(fs, func() int { return i })\n\t}\n\treturn\n}\n"
	write("go.mod", "module m\n\ngo 1.21\n")
	write("lib/lib.go", capture)
	write("lib/lib_test.go", capture)
	write("testdata/x.go", capture)
	write("inner/go.mod", "module inner\n")
	write("inner/x.go", capture)
	places, err := loopvarCaptures(root, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(places) != 1 || !strings.HasSuffix(places[0], filepath.Join("lib", "lib.go")+":5:39") {
		t.Errorf("places %v, want lib/lib.go:5:39 only", places)
	}
}

// TestCapturesImplicit: a loop variable's address taken without &: a
// pointer method taken as a value, one that keeps its receiver (or runs
// deferred), an array sliced, an address handed to a function that keeps
// it; a pointer method that only reads its receiver, a value method, a
// slice of a slice, a literal sort.Slice runs and an address a function
// only reads through are not.
func TestCapturesImplicit(t *testing.T) {
	src := `package p

import "sort"

type C struct{ N int }

var saved []*C

func norm(c *C) int { return c.N * c.N }
func keep(c *C)     { saved = append(saved, c) }

func (c *C) Report() int { return c.N }
func (c *C) Self() *C    { return c }
func (c C) Val() int     { return c.N }

func f(cs []C, rows [][]int) {
	var fs []func() int
	var ps []*C
	blocks := [][3]int{{1, 2, 3}}
	var views [][]int
	for _, c := range cs {
		fs = append(fs, c.Report) // 1
		ps = append(ps, c.Self()) // 2
		_ = c.Report() + c.Val()
		defer c.Report() // 3
	}
	for _, b := range blocks {
		views = append(views, b[:]) // 4
	}
	for _, r := range rows {
		views = append(views, r[1:])
	}
	for i := range rows {
		sort.Slice(rows[i], func(a, b int) bool { return rows[i][a] < rows[i][b] })
	}
	for _, c := range cs {
		_ = norm(&c)
		keep(&c) // 5
	}
	_, _, _ = fs, ps, views
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, p := range capturesIn(f, packageFuncs([]*ast.File{f})) {
		lines = append(lines, fset.Position(p).Line)
	}
	if fmt.Sprint(lines) != "[22 23 25 28 38]" {
		t.Errorf("captures at lines %v, want [22 23 25 28 38]", lines)
	}
}

// writeFile writes text to root/rel, making its directory.
func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
