package translate

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// TestPresentWraps checks, on the syntax tree of testdata/present.go's
// translation, exactly which operands are made present: those handed to
// other packages' functions and methods, interface methods and function
// values, in regions (and their --verify re-runs) and in sequential code;
// not those of the package's own functions and of interfaces only its
// types implement, of built-ins, conversions, cape's functions and
// function literals called in place, nor operands without references
// (numbers, strings, arrays of numbers, functions).
func TestPresentWraps(t *testing.T) {
	const file = "testdata/present.go"
	res, err := (&Config{Importer: testImporter(t)}).Files("testdata", []string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, res.Files[file], 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, isID := sel.X.(*ast.Ident); !isID || x.Name != "cape" || !strings.HasPrefix(sel.Sel.Name, "Present") {
			return true
		}
		var b strings.Builder
		if err := printer.Fprint(&b, fset, call.Args[0]); err != nil {
			t.Fatal(err)
		}
		got = append(got, sel.Sel.Name+" "+b.String())
		return true
	})
	want := []string{
		// sequential code
		"PresentAll f", "Present buf[:n]", // io.ReadFull
		"PresentAll f", "PresentPtr &h", // binary.Read
		"PresentAll f", // f.Fd()
		// the region, then its --verify re-run
		"Present buf[i*n : (i+1)*n]", "Present buf[i*n : (i+1)*n]", // syscall.Pread
		// sequential code
		"PresentAll w", "Present out[:1]", // an interface method
		"Present out[n : n+1]",                      // syscall.Write
		"PresentAll &bufs", "PresentAll io.Discard", // (&bufs).WriteTo: its rows too
		"PresentAll &bb", "Present buf[:1]", // a pointer method of another package
		"PresentAll newWrapped()", "Present out[:1]", // the same through an embedded pointer
		"PresentAll os.Stderr", "PresentAll fr", // fmt.Fprintln: a struct holding rows
		"PresentAll os.Stdout", "Present bytes.ToUpper(cape.Present(out[:0]))", "Present out[:0]",
		// each's body: a function value
		"Present b",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("operands made present:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
