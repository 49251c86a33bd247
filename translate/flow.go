package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// Loop-carried flow dependences through a shared array: an iteration that
// reads an element an earlier iteration writes (a[i] = (a[i-1] + a[i+1]) /
// 2, in place; a[i] += a[i-1]). Sequentially it reads the new value; on
// CAPE's nodes, the first iteration of a node's block reads the value
// before the region, which the node before wrote. Where the written and
// read indices of one array's first dimension are the loop variable plus
// constants, the translator tells: iteration i reads a[i+r] and iteration
// i' writes a[i'+w], the same element when i' = i + r - w, an earlier
// iteration (of the same stride) when that difference is a negative
// multiple of the step (positive, for a loop that counts down). Indices
// of other forms are not judged (--verify catches what is left).

// flowDependences refuses the reads, in r's loop body, of elements of a
// shared array that an earlier iteration writes.
func (t *translator) flowDependences(r *region) {
	l := r.loop
	if l == nil || l.v == nil {
		return
	}
	step := int64(1)
	if l.step != nil {
		tv, ok := t.info.Types[l.step]
		if !ok || tv.Value == nil {
			return
		}
		s, exact := constant.Int64Val(constant.ToInt(tv.Value))
		if !exact || s == 0 {
			return
		}
		step = max(s, -s)
	}
	type write struct {
		off int64
		pos token.Pos
	}
	writes := map[*types.Var][]write{}
	reads := map[*types.Var][]*ast.IndexExpr{}
	ast.Inspect(r.body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, lhs := range x.Lhs {
					if v, ix := t.firstIndex(r, lhs); v != nil {
						if off, ok := t.loopOffset(l, ix.Index); ok {
							writes[v] = append(writes[v], write{off, lhs.Pos()})
						}
					}
				}
			}
		case *ast.IncDecStmt:
			if v, ix := t.firstIndex(r, x.X); v != nil {
				if off, ok := t.loopOffset(l, ix.Index); ok {
					writes[v] = append(writes[v], write{off, x.X.Pos()})
				}
			}
		case *ast.IndexExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				if v := t.varOf(id); v != nil && t.sharedRoot(r, v) {
					reads[v] = append(reads[v], x)
				}
			}
		}
		return true
	})
	for v, ws := range writes {
		for _, rd := range reads[v] {
			roff, ok := t.loopOffset(l, rd.Index)
			if !ok {
				continue
			}
			for _, w := range ws {
				d := roff - w.off // the writing iteration is i + d
				if l.down {
					d = -d
				}
				if d < 0 && -d%step == 0 {
					t.errorf(rd.Pos(), "%s is read in the parallel loop, and written by an earlier iteration (%s at %s): a loop-carried dependence; on CAPE's nodes the first iteration of a node's share would read the value from before the region; read from a copy of the array (two arrays, swapped after the loop), or run the loop sequentially", t.text(rd), t.text(ast.Expr(rd.X))+"["+l.name+offText(w.off)+"]", t.where(w.pos))
					return
				}
			}
		}
	}
}

// offText writes the offset off after a loop variable: "+1", "-2", "".
func offText(off int64) string {
	switch {
	case off > 0:
		return "+" + constant.MakeInt64(off).String()
	case off < 0:
		return constant.MakeInt64(off).String()
	}
	return ""
}

// firstIndex returns the shared array variable the place e indexes first
// (a in a[i][j], a[i].f), with that index expression; else nil.
func (t *translator) firstIndex(r *region, e ast.Expr) (*types.Var, *ast.IndexExpr) {
	var first *ast.IndexExpr
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.IndexExpr:
			first = x
			e = ast.Unparen(x.X)
			continue
		case *ast.SelectorExpr:
			e = ast.Unparen(x.X)
			continue
		case *ast.Ident:
			if v := t.varOf(x); v != nil && first != nil && ast.Unparen(first.X) == ast.Expr(x) && t.sharedRoot(r, v) {
				return v, first
			}
		}
		return nil, nil
	}
}

// sharedRoot reports whether v is shared by r's iterations: declared
// outside the loop and in no clause.
func (t *translator) sharedRoot(r *region, v *types.Var) bool {
	return !within(v.Pos(), r.stmt) && r.clauseOf[v] == ""
}

// loopOffset returns c if e is the loop variable plus the constant c (v,
// v+c, v-c, c+v), else false.
func (t *translator) loopOffset(l *loopInfo, e ast.Expr) (int64, bool) {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok && t.varOf(id) == l.v {
		return 0, true
	}
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.ADD && b.Op != token.SUB {
		return 0, false
	}
	konst := func(x ast.Expr) (int64, bool) {
		tv, ok := t.info.Types[x]
		if !ok || tv.Value == nil {
			return 0, false
		}
		return constant.Int64Val(constant.ToInt(tv.Value))
	}
	isVar := func(x ast.Expr) bool {
		id, ok := ast.Unparen(x).(*ast.Ident)
		return ok && t.varOf(id) == l.v
	}
	if isVar(b.X) {
		if c, ok := konst(b.Y); ok {
			if b.Op == token.SUB {
				c = -c
			}
			return c, true
		}
	}
	if b.Op == token.ADD && isVar(b.Y) {
		return konst(b.X)
	}
	return 0, false
}
