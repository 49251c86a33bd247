package translate

import (
	"go/ast"
	gconst "go/constant"
	"go/token"
	"go/types"
)

// linearDiff returns hi - lo where both are linear in the same terms with
// integer constant coefficients (4*i+4 and 4*i, (k+1)*w and k*w, j+n and
// j) and the terms cancel: the length of x[lo:hi]. A term is a variable,
// a field or an element (pureExpr), which gives the same value at both
// places of one slice expression.
func (t *translator) linearDiff(hi, lo ast.Expr) (int64, bool) {
	h, ok := t.linear(hi)
	l, ok2 := t.linear(lo)
	if !ok || !ok2 {
		return 0, false
	}
	for k, c := range l.terms {
		h.terms[k] -= c
	}
	for _, c := range h.terms {
		if c != 0 {
			return 0, false
		}
	}
	return h.c - l.c, true
}

// linearForm is c + Σ terms[k]·k, k an expression's text.
type linearForm struct {
	terms map[string]int64
	c     int64
}

// linear returns e as a linear form, if it is one.
func (t *translator) linear(e ast.Expr) (linearForm, bool) {
	e = ast.Unparen(e)
	if tv, ok := t.info.Types[e]; ok && tv.Value != nil {
		c, exact := gconst.Int64Val(gconst.ToInt(tv.Value))
		return linearForm{terms: map[string]int64{}, c: c}, exact
	}
	switch x := e.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		if !t.pureExpr(x) {
			return linearForm{}, false
		}
		return linearForm{terms: map[string]int64{types.ExprString(x): 1}}, true
	case *ast.UnaryExpr:
		if x.Op == token.SUB {
			f, ok := t.linear(x.X)
			return f.scale(-1), ok
		}
	case *ast.BinaryExpr:
		a, ok := t.linear(x.X)
		b, ok2 := t.linear(x.Y)
		if !ok || !ok2 {
			return linearForm{}, false
		}
		switch x.Op {
		case token.ADD:
			return a.add(b, 1), true
		case token.SUB:
			return a.add(b, -1), true
		case token.MUL:
			if len(a.terms) == 0 {
				return b.scale(a.c), true
			}
			if len(b.terms) == 0 {
				return a.scale(b.c), true
			}
		}
	}
	return linearForm{}, false
}

func (f linearForm) scale(k int64) linearForm {
	g := linearForm{terms: make(map[string]int64, len(f.terms)), c: f.c * k}
	for t, c := range f.terms {
		g.terms[t] = c * k
	}
	return g
}

func (f linearForm) add(g linearForm, sign int64) linearForm {
	h := f.scale(1)
	for t, c := range g.terms {
		h.terms[t] += sign * c
	}
	h.c += sign * g.c
	return h
}
