package gocmd

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A module declaring a go version before 1.22 is built with the language
// version the runtime needs, under which each iteration of a loop has
// its own loop variable; under the module's own version the iterations
// share one. A program sees the difference only where a loop variable
// outlives its iteration: captured by a function literal that is not
// called at once, or its address taken. loopvarCaptures finds those, so
// that such a program is refused rather than run with another meaning.

// loopvarCaptures returns the places, as file:line:col, in the module's
// Go files below root (tests, testdata and vendor left out), where a
// loop's variable is captured by a function literal not called where it
// stands, or has its address taken, in the loop's body; at most max.
func loopvarCaptures(root string, max int) ([]string, error) {
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")):
			return filepath.SkipDir
		case d.IsDir() && p != root:
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0) // with the parser's resolution of names to declarations
		if err != nil {
			return nil // the build reports it
		}
		for _, pos := range capturesIn(f) {
			if len(found) < max {
				found = append(found, fset.Position(pos).String())
			}
		}
		return nil
	})
	return found, err
}

// capturesIn returns where, in f, a loop's variable is captured by a
// function literal not called at once, or has its address taken, inside
// the loop's body.
func capturesIn(f *ast.File) []token.Pos {
	var found []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		var vars []*ast.Ident
		var body *ast.BlockStmt
		switch x := n.(type) {
		case *ast.ForStmt:
			if as, ok := x.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				for _, l := range as.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						vars = append(vars, id)
					}
				}
			}
			body = x.Body
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
						vars = append(vars, id)
					}
				}
			}
			body = x.Body
		}
		if len(vars) == 0 {
			return true
		}
		decls := map[*ast.Object]bool{}
		for _, v := range vars {
			if v.Obj != nil {
				decls[v.Obj] = true
			}
		}
		found = append(found, outlives(body, decls)...)
		return true
	})
	return found
}

// outlives returns where, in body, a variable declared by one of decls
// (the loop's, as the parser resolves names: i := i in the body, or a
// literal's parameter k, declare others) is used in a function literal
// that is not called where it stands (go and defer call it later), or has
// its address taken.
func outlives(body *ast.BlockStmt, decls map[*ast.Object]bool) []token.Pos {
	names := func(id *ast.Ident) bool { return id.Obj != nil && decls[id.Obj] }
	var found []token.Pos
	called := map[*ast.FuncLit]bool{}
	later := map[*ast.CallExpr]bool{} // go and defer run the call after the iteration
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GoStmt:
			later[x.Call] = true
		case *ast.DeferStmt:
			later[x.Call] = true
		case *ast.CallExpr:
			if lit, ok := ast.Unparen(x.Fun).(*ast.FuncLit); ok && !later[x] {
				called[lit] = true
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && x.Op == token.AND && names(id) {
				found = append(found, x.Pos())
			}
		case *ast.FuncLit:
			if called[x] {
				return true
			}
			ast.Inspect(x.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && names(id) {
					found = append(found, id.Pos())
					return false
				}
				return true
			})
			return false
		}
		return true
	})
	return found
}

// loopvarError is the error for a module before go 1.22 whose loop
// variables outlive their iterations at places.
func loopvarError(gomod, userGo string, places []string) error {
	return fmt.Errorf("%s declares go %s, under which every iteration of a loop shares one loop variable, but cape builds with the language version of go %s, where each iteration has its own, and this program would see the difference: a loop variable outlives its iteration (captured by a function literal, or its address taken) at %s; "+
		"raise the go line of go.mod to 1.22 or later after checking that the program means each iteration's own variable or declare a copy in the body (i := i)",
		gomod, userGo, runtimeGo(), strings.Join(places, ", "))
}
