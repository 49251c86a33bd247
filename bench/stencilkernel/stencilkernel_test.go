package stencilkernel

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"
	"testing"

	"github.com/cape-go/cape/bench/workkernel"
)

// TestSameKernelAsExample checks that the point update (the body of the
// loop over j), the hot edge and the output loop are textually those of
// examples/stencil, so every variant computes every point identically.
func TestSameKernelAsExample(t *testing.T) {
	mine := fragments(t, "stencilkernel.go")
	theirs := fragments(t, "../../examples/stencil/main.go")
	for _, name := range []string{"point", "edge", "line"} {
		a, b := mine[name], theirs[name]
		if a == "" || b == "" {
			t.Fatalf("%s missing (bench/stencilkernel: %t, examples/stencil: %t)", name, a != "", b != "")
		}
		if a != b {
			t.Errorf("%s differs from examples/stencil:\n--- bench/stencilkernel\n%s\n--- examples/stencil\n%s", name, a, b)
		}
	}
	if !strings.Contains(theirs["format"], mine["format"]) || mine["format"] == "" {
		t.Errorf("output format %s is not the example's (%s)", mine["format"], theirs["format"])
	}
}

// fragments returns, printed: the body of the loop `for j := 1; …` ("point"),
// the range loop over size writing u[j] ("edge"), the range loop over size
// computing the hash ("line") and the format string holding "hash="
// ("format").
func fragments(t *testing.T, file string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	out := map[string]string{}
	print := func(n ast.Node) string {
		var buf bytes.Buffer
		if err := printer.Fprint(&buf, fset, n); err != nil {
			t.Fatalf("print: %v", err)
		}
		return buf.String()
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ForStmt:
			if init, ok := s.Init.(*ast.AssignStmt); ok && print(init) == "j := 1" {
				out["point"] = print(s.Body)
			}
		case *ast.RangeStmt:
			body := print(s.Body)
			switch {
			case strings.Contains(body, "hash"):
				out["line"] = print(s)
			case strings.Contains(body, "u[j], v[j] = 1, 1"):
				out["edge"] = print(s)
			}
		case *ast.BasicLit:
			if s.Kind == token.STRING && strings.Contains(s.Value, "hash=") {
				out["format"] = strings.TrimSuffix(strings.Trim(s.Value, "\""), `\n`)
			}
		}
		return true
	})
	return out
}

// TestBlocksBitIdentical checks the property the benchmark relies on: the
// grid swept in blocks, in any order, is bit for bit the grid swept whole.
func TestBlocksBitIdentical(t *testing.T) {
	const size, iters = 23, 9
	whole := run(size, iters, 1, false)
	for parts := 2; parts <= 5; parts++ {
		for _, reverse := range []bool{false, true} {
			if got := run(size, iters, parts, reverse); got != whole {
				t.Fatalf("%d parts (reverse %t): %s, whole: %s", parts, reverse, got, whole)
			}
		}
	}
}

func run(size, iters, parts int, reverse bool) string {
	u, v := make([]float64, size*size), make([]float64, size*size)
	Init(u, v, size)
	var diff float64
	for range iters {
		diff = 0
		for p := range parts {
			if reverse {
				p = parts - 1 - p
			}
			lo, hi := Rows(size, p, parts)
			diff = max(diff, Sweep(u, v, size, lo, hi))
		}
		u, v = v, u
	}
	return Line(u, size, iters, diff)
}

func TestRowsCoverInterior(t *testing.T) {
	for size := MinSize; size < 30; size++ {
		for parts := 1; parts < 9; parts++ {
			next := 1
			for p := range parts {
				lo, hi := Rows(size, p, parts)
				if lo != next || hi < lo {
					t.Fatalf("Rows(%d, %d, %d) = [%d, %d), want lo %d", size, p, parts, lo, hi, next)
				}
				// cape's static split: the first (size-2)%parts blocks
				// are one row longer than the others.
				want := (size - 2) / parts
				if p < (size-2)%parts {
					want++
				}
				if hi-lo != want {
					t.Fatalf("Rows(%d, %d, %d) = [%d, %d): %d rows, want %d", size, p, parts, lo, hi, hi-lo, want)
				}
				// workkernel's split of the same loop (mp-go's blocks).
				if wlo, whi := workkernel.Block(1, size-2, p, parts); wlo != lo || whi != hi {
					t.Errorf("Rows(%d, %d, %d) = [%d, %d), workkernel.Block says [%d, %d)", size, p, parts, lo, hi, wlo, whi)
				}
				next = hi
			}
			if next != size-1 {
				t.Fatalf("Rows(%d, *, %d) ends at %d, want %d", size, parts, next, size-1)
			}
		}
	}
}
