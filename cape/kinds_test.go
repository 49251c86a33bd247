package cape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestKindsFromWire checks that every message kind constant the package
// declares is a name for one of internal/wire's (whose table numbers them
// all, TestProtocolKindsUnique there), read from the package's source: a
// kind numbered here, beside the table, fails.
func TestKindsFromWire(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !isKindIdent(id.Name) {
						continue
					}
					found++
					if i >= len(vs.Values) || !isWireSelector(vs.Values[i]) {
						t.Errorf("%s: %s is not declared as a kind of internal/wire", fset.Position(id.Pos()), id.Name)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("found no kind constants in the package's source")
	}
}

func isKindIdent(s string) bool {
	rest, ok := strings.CutPrefix(s, "kind")
	return ok && rest != "" && unicode.IsUpper(rune(rest[0]))
}

func isWireSelector(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "wire"
}
