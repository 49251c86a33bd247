package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/cape-go/cape/transport"
)

// TestProtocolKindsUnique checks the kinds table: on each connection every
// number is unique and available to callers of the transport; every name
// is unique; every kind constant the package declares is in the table
// (read from kinds.go, so that a kind added beside the table fails here);
// and Name and Lookup find each entry.
func TestProtocolKindsUnique(t *testing.T) {
	type key struct {
		c Conn
		k uint8
	}
	byNum := map[key]string{}
	byName := map[string]bool{}
	for _, k := range Kinds {
		if k.Kind < transport.MinKind {
			t.Errorf("kind %s is %d, below transport.MinKind %d", k.Name, k.Kind, transport.MinKind)
		}
		if other, dup := byNum[key{k.Conn, k.Kind}]; dup {
			t.Errorf("kinds %s and %s are both %d on connection %d", other, k.Name, k.Kind, k.Conn)
		}
		if byName[k.Name] {
			t.Errorf("kind name %s twice", k.Name)
		}
		byNum[key{k.Conn, k.Kind}], byName[k.Name] = k.Name, true
		if ki, ok := Lookup(k.Conn, k.Kind); !ok || ki.Name != k.Name {
			t.Errorf("Lookup(%d, %d) = %v, %v", k.Conn, k.Kind, ki, ok)
		}
		if k.Conn == JobConn && Name(k.Kind) != k.Name {
			t.Errorf("Name(%d) = %q, want %q", k.Kind, Name(k.Kind), k.Name)
		}
		if k.From == k.To || k.Decode == nil {
			t.Errorf("kind %s: from %v to %v, decoder %v", k.Name, k.From, k.To, k.Decode != nil)
		}
	}
	if _, ok := Lookup(JobConn, 255); ok || Name(255) != "unknown kind 255" {
		t.Errorf("kind 255 is known: %q", Name(255))
	}
	declared := kindConstants(t)
	if len(declared) != len(Kinds) {
		t.Errorf("kinds.go declares %d kinds, the table has %d entries", len(declared), len(Kinds))
	}
	for _, name := range declared {
		if !slices.ContainsFunc(Kinds[:], func(k KindInfo) bool { return k.Name == lowerFirst(name) }) {
			t.Errorf("kind %s is not in the table", name)
		}
	}
}

// TestKindNumbers pins the numbers, which are on the wire: a change breaks
// a job whose nodes run different builds, and the recorded fuzz corpus.
func TestKindNumbers(t *testing.T) {
	want := map[string]uint8{"delta": 16, "merged": 17, "chunkReq": 18, "chunk": 19, "done": 20, "abort": 21,
		"live": 22, "leave": 23, "replay": 24, "image": 25, "join": 26, "lazyHello": 27, "lazyInfo": 28,
		"notice": 29, "collect": 30, "runs": 31, "release": 32, "finished": 33, "homesReady": 34, "homesGo": 35,
		"stdinInfo": 56, "stdinData": 16, "stdinEnd": 17, "stdinAck": 18}
	for _, k := range Kinds {
		if w, ok := want[k.Name]; !ok || w != k.Kind {
			t.Errorf("kind %s is %d, want %d", k.Name, k.Kind, w)
		}
	}
}

func lowerFirst(s string) string { return string(s[0]+'a'-'A') + s[1:] }

// kindConstants returns the names of the uint8 constants of kinds.go.
func kindConstants(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "kinds.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		typ := ""
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok {
				typ = id.Name
			} else if vs.Type != nil {
				typ = ""
			}
			if typ == "uint8" {
				for _, id := range vs.Names {
					names = append(names, id.Name)
				}
			}
		}
	}
	return names
}
