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

// TestKindsFromWire checks, from the package's source, that every message
// kind the runtime sends is one of internal/wire's (whose table numbers them
// all, TestProtocolKindsUnique there): a constant named kindX declared here
// must be a name for a wire kind, and a message's Kind, or the kind given to
// SendBuffers or sendEach, is never a number written here.
func TestKindsFromWire(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	sends := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		n, bad := kindProblems(f)
		sends += n
		for _, b := range bad {
			t.Errorf("%s: %s", fset.Position(b.pos), b.what)
		}
	}
	if sends == 0 {
		t.Fatal("found no message sent in the package's source")
	}
}

// TestKindProblems checks kindProblems on sources that break the rule and
// sources that keep it.
func TestKindProblems(t *testing.T) {
	for _, c := range []struct {
		src        string
		sends, bad int
	}{
		{`const kindDelta = wire.Delta`, 0, 0},
		{`const kindDelta = 1`, 0, 1},
		{`const (kindA = wire.A; kindB = 7; other = 3)`, 0, 1},
		{`var _ = transport.Message{Kind: wire.Merged, Seq: 1}`, 1, 0},
		{`var _ = transport.Message{Kind: 12}`, 1, 1},
		{`var _ = transport.Message{Seq: 1}`, 1, 0},
		{`func f() { n.sendEach(wire.LazyInfo, p); n.slave.SendBuffers(wire.Delta, seq, b) }`, 2, 0},
		{`func f() { n.sendEach(9, p) }`, 1, 1},
		{`func f() { n.master.SendBuffers(rank, 3, seq, b) }`, 1, 1},
		{`func f() { m.Send(rank, transport.Message{Kind: kind}) }`, 1, 0},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+c.src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		sends, bad := kindProblems(f)
		if sends != c.sends || len(bad) != c.bad {
			t.Errorf("%s: %d sends, problems %v; want %d sends, %d problems", c.src, sends, bad, c.sends, c.bad)
		}
	}
}

type kindProblem struct {
	pos  token.Pos
	what string
}

// kindProblems returns the number of messages f sends (transport.Message
// literals, SendBuffers and sendEach calls) and the kinds it numbers itself.
func kindProblems(f *ast.File) (sends int, bad []kindProblem) {
	ast.Inspect(f, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.ValueSpec:
			for i, id := range x.Names {
				if isKindIdent(id.Name) && (i >= len(x.Values) || !isWireSelector(x.Values[i])) {
					bad = append(bad, kindProblem{id.Pos(), id.Name + " is not declared as a kind of internal/wire"})
				}
			}
		case *ast.CompositeLit:
			if !isSelector(x.Type, "transport", "Message") {
				return true
			}
			sends++
			for _, e := range x.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Kind") && isLiteral(kv.Value) {
					bad = append(bad, kindProblem{kv.Pos(), "a message's kind is a number, not internal/wire's"})
				}
			}
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "SendBuffers" && sel.Sel.Name != "sendEach") {
				return true
			}
			sends++
			for _, a := range x.Args[:min(2, len(x.Args))] {
				if isLiteral(a) {
					bad = append(bad, kindProblem{a.Pos(), sel.Sel.Name + " is given a number, not internal/wire's kind"})
				}
			}
		}
		return true
	})
	return sends, bad
}

func isKindIdent(s string) bool {
	rest, ok := strings.CutPrefix(s, "kind")
	return ok && rest != "" && unicode.IsUpper(rune(rest[0]))
}

func isWireSelector(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(sel.X, "wire")
}

func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(sel.X, pkg) && sel.Sel.Name == name
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isLiteral(e ast.Expr) bool {
	_, ok := e.(*ast.BasicLit)
	return ok
}
