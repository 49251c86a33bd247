package translate

import (
	"fmt"
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
		coef, off int64
		ix        *ast.IndexExpr // the place's first index
	}
	writes := map[string][]write{}
	reads := map[string][]*ast.IndexExpr{}
	wrote := func(place ast.Expr) {
		if k, ix := t.firstIndex(r, place); k != "" {
			if c, off, ok := t.loopAffine(l, ix.Index); ok {
				writes[k] = append(writes[k], write{c, off, ix})
			}
		}
	}
	ast.Inspect(r.body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, lhs := range x.Lhs {
					wrote(lhs)
				}
			}
		case *ast.IncDecStmt:
			wrote(x.X)
		case *ast.IndexExpr:
			if k := t.arrayKey(r, x.X); k != "" {
				reads[k] = append(reads[k], x)
			}
		}
		return true
	})
	for k, ws := range writes {
		for _, rd := range reads[k] {
			rc, roff, ok := t.loopAffine(l, rd.Index)
			if !ok {
				continue
			}
			for _, w := range ws {
				// Iteration i reads element rc*i + roff, iteration i'
				// writes w.coef*i' + w.off: the same when i' = i + d.
				if rc != w.coef || (roff-w.off)%rc != 0 {
					continue
				}
				d := (roff - w.off) / rc
				if l.down {
					d = -d
				}
				if d < 0 && -d%step == 0 {
					t.errorf(rd.Pos(), "%s is read in the parallel loop, and written by an earlier iteration (%s at %s): a loop-carried dependence; on CAPE's nodes the first iteration of a node's share would read the value from before the region; read from a copy of the array (two arrays, swapped after the loop), or run the loop sequentially", t.text(rd), t.text(w.ix), t.where(w.ix.Pos()))
					return
				}
			}
		}
	}
}

// firstIndex returns the key (arrayKey) of the shared array the place e
// indexes first (a in a[i][j], s.data in s.data[i].f), with that index
// expression; else "".
func (t *translator) firstIndex(r *region, e ast.Expr) (string, *ast.IndexExpr) {
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = ast.Unparen(x.X)
			if k := t.arrayKey(r, e); k != "" {
				return k, x
			}
		case *ast.SelectorExpr:
			e = ast.Unparen(x.X)
		default:
			return "", nil
		}
	}
}

// arrayKey names the shared array or slice that the expression x denotes,
// so that two expressions of one get one key: a variable (through slices
// copied once, b := a, to the variable copied; an array copied is another) or a chain of fields of one
// (s.data, g.Rows); "" for any other expression, or memory of the
// iteration's own.
func (t *translator) arrayKey(r *region, x ast.Expr) string {
	x = ast.Unparen(x)
	switch e := x.(type) {
	case *ast.Ident:
		v := t.varOf(e)
		for range 4 {
			if v == nil {
				return ""
			}
			src := t.facts.sources[v]
			if len(src) != 1 || src[0].expr == nil {
				break
			}
			id, ok := ast.Unparen(src[0].expr).(*ast.Ident)
			if _, slice := v.Type().Underlying().(*types.Slice); !ok || !slice || t.varOf(id) == nil {
				break // an array assigned is a copy: another array
			}
			v = t.varOf(id) // b := a, slices: the same array
		}
		if v == nil || !t.sharedRoot(r, v) {
			return ""
		}
		return fmt.Sprintf("%s@%d", v.Name(), v.Pos())
	case *ast.SelectorExpr:
		root := t.rootVar(e)
		if root == nil || !t.sharedRoot(r, root) {
			return ""
		}
		for y := ast.Expr(e); ; {
			switch z := ast.Unparen(y).(type) {
			case *ast.SelectorExpr:
				y = z.X
				continue
			case *ast.Ident:
				return t.text(e)
			}
			return "" // indexes or calls on the way: not judged
		}
	}
	return ""
}

// sharedRoot reports whether v is shared by r's iterations: declared
// outside the loop and in no clause.
func (t *translator) sharedRoot(r *region, v *types.Var) bool {
	return !within(v.Pos(), r.stmt) && r.clauseOf[v] == ""
}

// loopAffine returns c and k if e is c·v + k for r's loop variable v and
// constants c ≠ 0 and k (v, v+1, 2*v-2, (v-1)*3), else false.
func (t *translator) loopAffine(l *loopInfo, e ast.Expr) (c, k int64, ok bool) {
	c, k, ok = t.affine(l, e, 0)
	return c, k, ok && c != 0
}

func (t *translator) affine(l *loopInfo, e ast.Expr, depth int) (c, k int64, ok bool) {
	if depth > 6 {
		return 0, 0, false
	}
	e = ast.Unparen(e)
	if tv, found := t.info.Types[e]; found && tv.Value != nil {
		k, exact := constant.Int64Val(constant.ToInt(tv.Value))
		return 0, k, exact
	}
	switch x := e.(type) {
	case *ast.Ident:
		return 1, 0, t.varOf(x) == l.v
	case *ast.BinaryExpr:
		c1, k1, ok1 := t.affine(l, x.X, depth+1)
		c2, k2, ok2 := t.affine(l, x.Y, depth+1)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		switch x.Op {
		case token.ADD:
			return c1 + c2, k1 + k2, true
		case token.SUB:
			return c1 - c2, k1 - k2, true
		case token.MUL:
			if c1 != 0 && c2 != 0 {
				return 0, 0, false // v·v
			}
			return c1*k2 + c2*k1, k1 * k2, true
		}
	}
	return 0, 0, false
}
