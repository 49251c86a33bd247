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
// read indices of one array's first dimension are polynomials in the loop
// variable, variables the loop does not assign and counters of inner loops
// with such bounds (flowform.go), the translator tells: iteration i reads
// a[R(i)] and iteration i' writes a[W(i')], the same element for every
// value of the other variables when i' = i + d (flowDistance; for a[i+r]
// and a[i'+w], d = r - w), an earlier iteration (of the same stride) when
// d is a negative multiple of the step (positive, for a loop that counts
// down). A slice sub-sliced from the array (d := a[1:]) is the array with
// an offset. Indices
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
	fc := t.newFormCtx(r)
	type place struct {
		form linForm
		ix   *ast.IndexExpr // the place's first index
	}
	writes := map[string][]place{}
	reads := map[string][]place{}
	wrote := func(e ast.Expr) {
		if k, ix, off := fc.firstIndex(e); k != "" {
			if f, ok := fc.form(ix.Index, 0); ok {
				writes[k] = append(writes[k], place{f.add(off, 1), ix})
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
			if k, off, ok := fc.arrayKey(x.X); ok {
				if f, ok := fc.form(x.Index, 0); ok {
					reads[k] = append(reads[k], place{f.add(off, 1), x})
				}
			}
		}
		return true
	})
	for k, ws := range writes {
		for _, rd := range reads[k] {
			for _, w := range ws {
				// Iteration i reads what iteration i+d writes.
				d, ok := flowDistance(w.form, rd.form)
				if !ok || !fc.sameCounters(w.form, rd.form, w.ix, rd.ix) {
					continue
				}
				if l.down {
					d = -d
				}
				if d < 0 && -d%step == 0 {
					t.errorf(rd.ix.Pos(), "%s is read in the parallel loop, and written by an earlier iteration (%s at %s): a loop-carried dependence; on CAPE's nodes the first iteration of a node's share would read the value from before the region; read from a copy of the array (two arrays, swapped after the loop), or run the loop sequentially", t.text(rd.ix), t.text(w.ix), t.where(w.ix.Pos()))
					return
				}
			}
		}
	}
}

// firstIndex returns the key (arrayKey) of the shared array the place e
// indexes first (a in a[i][j], s.data in s.data[i].f), with that index
// expression and the offset of the slice indexed in the array (1 for d
// in d := a[1:]); else "".
func (fc *formCtx) firstIndex(e ast.Expr) (string, *ast.IndexExpr, linForm) {
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = ast.Unparen(x.X)
			if k, off, ok := fc.arrayKey(e); ok {
				return k, x, off
			}
		case *ast.SelectorExpr:
			e = ast.Unparen(x.X)
		default:
			return "", nil, nil
		}
	}
}

// arrayKey names the shared array or slice that the expression x denotes,
// so that two expressions of one get one key: a variable (through slices
// copied or sub-sliced once, b := a, d := a[1:], to the variable copied,
// with the offset of its first element in it; an array copied is another)
// or a chain of fields of one (s.data, g.Rows); false for any other
// expression, or memory of the iteration's own.
func (fc *formCtx) arrayKey(x ast.Expr) (string, linForm, bool) {
	t, r := fc.t, fc.r
	x = ast.Unparen(x)
	switch e := x.(type) {
	case *ast.Ident:
		v := t.varOf(e)
		off := linForm{}
		for range 4 {
			if v == nil {
				return "", nil, false
			}
			src := t.facts.sources[v]
			if len(src) != 1 || src[0].expr == nil {
				break
			}
			if _, slice := v.Type().Underlying().(*types.Slice); !slice {
				break // an array assigned is a copy: another array
			}
			from := ast.Unparen(src[0].expr)
			if se, ok := from.(*ast.SliceExpr); ok {
				lo := linForm{}
				if se.Low != nil {
					f, ok := fc.form(se.Low, 0)
					if !ok {
						break
					}
					lo = f
				}
				off, from = off.add(lo, 1), ast.Unparen(se.X)
			}
			id, ok := from.(*ast.Ident)
			if !ok || t.varOf(id) == nil {
				break
			}
			v = t.varOf(id) // b := a, slices: the same array
		}
		if v == nil || !t.sharedRoot(r, v) {
			return "", nil, false
		}
		return fmt.Sprintf("%s@%d", v.Name(), v.Pos()), off, true
	case *ast.SelectorExpr:
		root := t.rootVar(e)
		if root == nil || !t.sharedRoot(r, root) {
			return "", nil, false
		}
		for y := ast.Expr(e); ; {
			switch z := ast.Unparen(y).(type) {
			case *ast.SelectorExpr:
				y = z.X
				continue
			case *ast.Ident:
				return t.text(e), linForm{}, true
			}
			return "", nil, false // indexes or calls on the way: not judged
		}
	}
	return "", nil, false
}

// sharedRoot reports whether v is shared by r's iterations: declared
// outside the loop and in no clause.
func (t *translator) sharedRoot(r *region, v *types.Var) bool {
	return !within(v.Pos(), r.stmt) && r.clauseOf[v] == ""
}
