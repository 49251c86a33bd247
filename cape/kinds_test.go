package cape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/cape-go/cape/transport"
)

// ownConnection names the kind constants of connections other than the
// job's, which number their kinds apart: the input stream's (stdin.go).
var ownConnection = map[string]bool{"kindStdinData": true, "kindStdinEnd": true, "kindStdinAck": true}

// TestProtocolKindsUnique checks the kinds table: every number is unique
// and available to callers of the transport, every name is unique, and
// every kind constant the package declares for the job's connection is in
// the table (read from the package's source, so that a kind added beside
// the table fails here).
func TestProtocolKindsUnique(t *testing.T) {
	byNum := map[uint8]string{}
	byName := map[string]bool{}
	for _, k := range kinds {
		if k.kind < transport.MinKind {
			t.Errorf("kind %s is %d, below transport.MinKind %d", k.name, k.kind, transport.MinKind)
		}
		if other, dup := byNum[k.kind]; dup {
			t.Errorf("kinds %s and %s are both %d", other, k.name, k.kind)
		}
		if byName[k.name] {
			t.Errorf("kind name %s twice", k.name)
		}
		byNum[k.kind], byName[k.name] = k.name, true
		if kindName(k.kind) != k.name {
			t.Errorf("kindName(%d) = %q, want %q", k.kind, kindName(k.kind), k.name)
		}
	}
	declared, listed := kindIdents(t)
	for _, id := range declared {
		if !ownConnection[id] && !slices.Contains(listed, id) {
			t.Errorf("%s is not in the kinds table (protocol.go)", id)
		}
	}
	if len(listed) != len(kinds) {
		t.Errorf("the table lists %d identifiers, has %d entries", len(listed), len(kinds))
	}
}

// kindIdents returns the kind constants the package's non-test files
// declare, and the identifiers the kinds table lists.
func kindIdents(t *testing.T) (declared, listed []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
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
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, id := range vs.Names {
					switch {
					case gd.Tok == token.CONST && isKindIdent(id.Name):
						declared = append(declared, id.Name)
					case gd.Tok == token.VAR && id.Name == "kinds" && i < len(vs.Values):
						listed = append(listed, tableIdents(vs.Values[i])...)
					}
				}
			}
		}
	}
	if len(declared) == 0 || len(listed) == 0 {
		t.Fatalf("found %d kind constants and %d table entries in the package's source", len(declared), len(listed))
	}
	return declared, listed
}

func isKindIdent(s string) bool {
	rest, ok := strings.CutPrefix(s, "kind")
	return ok && rest != "" && unicode.IsUpper(rune(rest[0]))
}

// tableIdents returns the first field of each element of the kinds table's
// composite literal.
func tableIdents(e ast.Expr) []string {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var ids []string
	for _, el := range cl.Elts {
		if kl, ok := el.(*ast.CompositeLit); ok && len(kl.Elts) > 0 {
			if id, ok := kl.Elts[0].(*ast.Ident); ok {
				ids = append(ids, id.Name)
			}
		}
	}
	return ids
}
