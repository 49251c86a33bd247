package kernel

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"
	"testing"
)

// TestSameKernelAsExample checks that the fill loop, the body of the row
// loop and the checksum are, up to the name of the size variable, those of
// examples/matmul (whose row loop carries the //cape:parallel for
// directive), so the CAPE variants and the baselines time the same code.
func TestSameKernelAsExample(t *testing.T) {
	mine := fragments(t, "kernel.go")
	theirs := fragments(t, "../../examples/matmul/main.go")
	for _, name := range []string{"fill", "row", "checksum"} {
		a, b := mine[name], theirs[name]
		if a == "" || b == "" {
			t.Fatalf("%s missing (bench/kernel: %t, examples/matmul: %t)", name, a != "", b != "")
		}
		if a != b {
			t.Errorf("%s differs from examples/matmul:\n--- bench/kernel\n%s\n--- examples/matmul\n%s", name, a, b)
		}
	}
}

// fragments returns, printed with the size variable renamed to n: the loop
// filling A and B ("fill"), the body of the outermost loop over the rows
// of C ("row"), and the body of the checksum function.
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
		return strings.ReplaceAll(buf.String(), "size", "n")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncDecl:
			if s.Name.Name == "checksum" || s.Name.Name == "Checksum" {
				out["checksum"] = print(s.Body)
			}
		case *ast.RangeStmt:
			if id, ok := s.X.(*ast.Ident); ok && id.Name == "a" && out["fill"] == "" {
				out["fill"] = print(s)
			}
		case *ast.ForStmt:
			// The row loop: the first loop whose body holds a loop whose
			// body holds a loop (i, j, k).
			if out["row"] == "" && depth(s) == 3 {
				out["row"] = print(s.Body)
			}
		}
		return true
	})
	return out
}

func depth(n ast.Node) int {
	d := 0
	ast.Inspect(n, func(m ast.Node) bool {
		if f, ok := m.(*ast.ForStmt); ok && f != n {
			d = max(d, depth(f))
			return false
		}
		return true
	})
	return d + 1
}

func TestBlockCoversRange(t *testing.T) {
	for count := 0; count < 40; count++ {
		for size := 1; size < 9; size++ {
			next := 0
			for r := 0; r < size; r++ {
				lo, hi := Block(count, r, size)
				if lo != next || hi < lo {
					t.Fatalf("Block(%d, %d, %d) = [%d, %d), want lo %d", count, r, size, lo, hi, next)
				}
				next = hi
			}
			if next != count && count > 0 {
				t.Fatalf("Block(%d, *, %d) ends at %d", count, size, next)
			}
		}
	}
}

func TestChecksumSmall(t *testing.T) {
	const n = 8
	a, b, c := make([]int64, n*n), make([]int64, n*n), make([]int64, n*n)
	Fill(a, b)
	Multiply(a, b, c, n, 0, n)
	d := make([]int64, n*n)
	for r := 0; r < 3; r++ {
		lo, hi := Block(n, r, 3)
		Multiply(a, b, d, n, lo, hi)
	}
	if Checksum(c) != Checksum(d) {
		t.Fatalf("blocked product differs from the whole one")
	}
}
