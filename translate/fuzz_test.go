package translate

import (
	"go/ast"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// renderClauses prints clauses in the canonical spelling that parseClauses
// must read back to the same clauses.
func renderClauses(cl []clause) string {
	var parts []string
	for _, c := range cl {
		var args []string
		for _, a := range c.args {
			args = append(args, a.text)
		}
		in := strings.Join(args, ", ")
		if c.name == "reduction" {
			in = c.op + ":" + in
		}
		parts = append(parts, c.name+"("+in+")")
	}
	return strings.Join(parts, " ")
}

type plainClause struct {
	name, op string
	args     []string
}

func plain(cl []clause) []plainClause {
	var out []plainClause
	for _, c := range cl {
		p := plainClause{name: c.name, op: c.op}
		for _, a := range c.args {
			p.args = append(p.args, a.text)
		}
		out = append(out, p)
	}
	return out
}

// FuzzParseClauses checks the clause parser: no panic; errors carry a
// position inside the text; accepted clauses are known, with known
// reduction operators and non-empty trimmed arguments found at their
// positions; and the canonical rendering parses back to the same clauses.
func FuzzParseClauses(f *testing.F) {
	for _, s := range []string{
		" shared(a, b) private(i)", " reduction(+:sum) schedule(dynamic, 4)", " firstprivate(x[0], f(a,b))",
		" reduction(min: m), lastprivate(k)", " schedule(", " bogus(x)", " private()", " reduction(:x)",
		" reduction(&&:a, b)", " shared(a,,b)", "\t,shared(m[i](j))", " private(é)",
	} {
		f.Add(s)
	}
	const base = token.Pos(100)
	f.Fuzz(func(t *testing.T, s string) {
		cl, err := parseClauses(s, base)
		if err != nil {
			ce, ok := err.(*clauseError)
			if !ok {
				t.Fatalf("%q: error %T %v, want a positioned *clauseError", s, err, err)
			}
			if ce.pos < base || ce.pos > base+token.Pos(len(s)) {
				t.Fatalf("%q: error at %d, outside [%d, %d]", s, ce.pos, base, base+token.Pos(len(s)))
			}
			return
		}
		for _, c := range cl {
			if !knownClauses[c.name] {
				t.Fatalf("%q: unknown clause %q accepted", s, c.name)
			}
			if at := int(c.pos - base); at < 0 || !strings.HasPrefix(s[at:], c.name) {
				t.Fatalf("%q: clause %q at %d", s, c.name, at)
			}
			if _, ok := reductionOps[c.op]; (c.name == "reduction") != ok {
				t.Fatalf("%q: clause %s with operator %q", s, c.name, c.op)
			}
			if len(c.args) == 0 {
				t.Fatalf("%q: clause %s without arguments", s, c.name)
			}
			for _, a := range c.args {
				if a.text == "" || strings.TrimSpace(a.text) != a.text {
					t.Fatalf("%q: argument %q", s, a.text)
				}
				if at := int(a.pos - base); at < 0 || at > len(s) || !strings.HasPrefix(s[at:], a.text) {
					t.Fatalf("%q: argument %q is not at %d", s, a.text, at)
				}
			}
		}
		out := " " + renderClauses(cl)
		again, err := parseClauses(out, base)
		if err != nil {
			t.Fatalf("%q parsed as %+v, rendered as %q, which does not parse: %v", s, plain(cl), out, err)
		}
		if !reflect.DeepEqual(plain(again), plain(cl)) {
			t.Fatalf("%q parsed as %+v, rendered as %q, parsed back as %+v", s, plain(cl), out, plain(again))
		}
	})
}

// FuzzParseDirective checks whole //cape: comments: no panic, ordinary
// comments are not directives, and an accepted directive has a kind and a
// text that parses back to the same directive.
func FuzzParseDirective(f *testing.F) {
	for _, s := range []string{
		"//cape:parallel for schedule(static) // trailing", "//cape:parallel sections", "//cape:section",
		"//cape:section x", "// cape:parallel for", "//cape:parallel", "//cape:parallel while", "//cape:barrier",
		"//go:noinline", "// just a comment", "//cape:parallel for reduction(+:s) //", "/* block */",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !strings.HasPrefix(text, "//") || strings.ContainsAny(text, "\n\r") {
			return // not a line comment as go/scanner produces them
		}
		d, err := parseDirective(&ast.Comment{Slash: 1, Text: text})
		if err != nil || d == nil {
			if d != nil {
				t.Fatalf("%q: a directive and an error %v", text, err)
			}
			return
		}
		if d.kind < dirFor || d.kind > dirSection {
			t.Fatalf("%q: kind %d", text, d.kind)
		}
		again, err := parseDirective(&ast.Comment{Slash: 1, Text: d.text})
		if err != nil || again == nil {
			t.Fatalf("%q: canonical text %q does not parse: %v", text, d.text, err)
		}
		if again.kind != d.kind || again.text != d.text || !reflect.DeepEqual(plain(again.clauses), plain(d.clauses)) {
			t.Fatalf("%q: canonical text %q parses to %+v, want %+v", text, d.text, again, d)
		}
	})
}
