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
	sites := &flowSites{writes: map[string][]flowPlace{}, reads: map[string][]flowPlace{}}
	fc.collect(r.body, nil, sites, 0)
	fc.rangeValue(sites)
	for k, ws := range sites.writes {
		for _, rd := range sites.reads[k] {
			for _, w := range ws {
				// Iteration i reads what iteration i+d writes.
				d, ok := flowDistance(w.form, rd.form)
				if !ok || !fc.sameCounters(w.form, rd.form, w.at, rd.at) {
					continue
				}
				if l.down {
					d = -d
				}
				if d < 0 && -d%step == 0 {
					t.errorf(rd.at.Pos(), "%s in the parallel loop, and written by an earlier iteration (%s): a loop-carried dependence; on CAPE's nodes the first iteration of a node's share would read the value from before the region; read from a copy of the array (two arrays, swapped after the loop), or run the loop sequentially", t.flowRead(rd), t.flowSite(w))
					return
				}
			}
		}
	}
}

// A flowPlace is an element of a shared array that r's loop body reads
// or writes.
type flowPlace struct {
	form linForm  // its index in the array
	ix   ast.Expr // the place: an index expression, or a field of a pointer to an element
	at   ast.Node // where in the loop body: ix, or the call that reaches it
}

// flowSites are the places of a loop body's accesses, by array (arrayKey).
type flowSites struct {
	writes, reads map[string][]flowPlace
}

// flowRead says where the place p is read, for an error: "a[i-1] is
// read", "get(a, i-1) reads a[j] (at main.go:3)".
func (t *translator) flowRead(p flowPlace) string {
	if p.at == ast.Node(p.ix) {
		return t.text(p.ix) + " is read"
	}
	return t.text(p.at) + " reads " + t.text(p.ix) + " (at " + t.where(p.ix.Pos()) + ")"
}

// flowSite names the written place p for an error: "a[i] at main.go:9",
// "set(a, i) writing a[k] at main.go:4".
func (t *translator) flowSite(p flowPlace) string {
	if p.at == ast.Node(p.ix) {
		return t.text(p.ix) + " at " + t.where(p.ix.Pos())
	}
	return t.text(p.at) + " writing " + t.text(p.ix) + " at " + t.where(p.ix.Pos())
}

// rangeValue adds to s the read of the range value (v in for i, v :=
// range a: a[i] at the iteration's start), where the loop ranges over a
// shared slice or a pointer to an array (over an array, Go ranges over a
// copy).
func (fc *formCtx) rangeValue(s *flowSites) {
	l := fc.r.loop
	if l.valueVar == nil || l.rangeX == nil {
		return
	}
	x := ast.Unparen(l.rangeX)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	} else if _, arr := fc.t.info.TypeOf(x).Underlying().(*types.Array); arr {
		return
	}
	if k, off, ok := fc.arrayKey(x); ok {
		s.reads[k] = append(s.reads[k], flowPlace{linForm{loopKey: 1}.add(off, 1), l.value, l.value})
	}
}

// maxFlowCalls is how deep collect follows the calls of a loop body.
const maxFlowCalls = 2

// collect adds to s the places that body (the loop body, or a function
// it calls, at) reads and writes with indices fc can read as forms, and
// follows the calls of the package's functions.
func (fc *formCtx) collect(body ast.Node, at ast.Node, s *flowSites, depth int) {
	site := func(ix ast.Expr) ast.Node {
		if at != nil {
			return at
		}
		return ix
	}
	wrote := func(e ast.Expr) {
		if ref, ok := fc.elemPlace(e); ok {
			s.writes[ref.key] = append(s.writes[ref.key], flowPlace{ref.off, e, site(e)})
			return
		}
		if k, ix, off := fc.firstIndex(e); k != "" {
			if f, ok := fc.form(ix.Index, 0); ok {
				s.writes[k] = append(s.writes[k], flowPlace{f.add(off, 1), ix, site(ix)})
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
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
					s.reads[k] = append(s.reads[k], flowPlace{f.add(off, 1), x, site(x)})
				}
			}
		case *ast.SelectorExpr, *ast.StarExpr:
			if ref, ok := fc.elemPlace(x.(ast.Expr)); ok {
				s.reads[ref.key] = append(s.reads[ref.key], flowPlace{ref.off, x.(ast.Expr), site(x.(ast.Expr))})
				return false
			}
		case *ast.CallExpr:
			fc.copyPlaces(x, s, site(x))
			if depth < maxFlowCalls {
				if sub, d := fc.calleeCtx(x); sub != nil {
					if at == nil {
						sub.collect(d.Body, x, s, depth+1)
					} else {
						sub.collect(d.Body, at, s, depth+1)
					}
				}
			}
		}
		return true
	})
}

// copyPlaces adds to s the elements that copy(dst[lo:hi], src[lo2:hi2])
// writes and reads, where the windows' widths are constants of at most
// 8: copy(a[i:i+1], a[i-1:i]) writes a[i] and reads a[i-1].
func (fc *formCtx) copyPlaces(call *ast.CallExpr, s *flowSites, at ast.Node) {
	if b, ok := fc.t.info.Uses[calleeIdent(call)].(*types.Builtin); !ok || b.Name() != "copy" || len(call.Args) != 2 {
		return
	}
	window := func(e ast.Expr) (string, linForm, int64, bool) {
		se, ok := ast.Unparen(e).(*ast.SliceExpr)
		if !ok || se.Low == nil || se.High == nil {
			return "", nil, 0, false
		}
		key, off, ok1 := fc.arrayKey(se.X)
		lo, ok2 := fc.form(se.Low, 0)
		hi, ok3 := fc.form(se.High, 0)
		w := hi.add(lo, -1)
		if !ok1 || !ok2 || !ok3 || len(w) > 1 || w[""] < 0 || w[""] > 8 {
			return "", nil, 0, false
		}
		return key, lo.add(off, 1), w[""], true
	}
	dk, dlo, dw, ok1 := window(call.Args[0])
	sk, slo, sw, ok2 := window(call.Args[1])
	if !ok1 || !ok2 {
		return
	}
	for k := range min(dw, sw) {
		s.writes[dk] = append(s.writes[dk], flowPlace{dlo.add(linForm{"": k}, 1), call.Args[0], at})
		s.reads[sk] = append(s.reads[sk], flowPlace{slo.add(linForm{"": k}, 1), call.Args[1], at})
	}
}

// elemPlace returns the element of a shared array that the place e (in a
// called function) lies in, where e is a field of a pointer parameter
// bound to one (c.v, c.pos.x, *c, c.arr[2]; calleeCtx): through fields
// and arrays held in the element, not through pointers or slices it holds.
func (fc *formCtx) elemPlace(e ast.Expr) (arrayRef, bool) {
	if fc.scope == nil {
		return arrayRef{}, false
	}
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.Ident:
			ref, ok := fc.elems[fc.t.varOf(x)]
			return ref, ok
		case *ast.StarExpr:
			if _, isIdent := ast.Unparen(x.X).(*ast.Ident); !isIdent {
				return arrayRef{}, false
			}
			e = ast.Unparen(x.X)
		case *ast.SelectorExpr:
			if _, isIdent := ast.Unparen(x.X).(*ast.Ident); !isIdent {
				if tx := fc.t.info.TypeOf(x.X); tx == nil {
					return arrayRef{}, false
				} else if _, ptr := tx.Underlying().(*types.Pointer); ptr {
					return arrayRef{}, false // through a pointer the element holds
				}
			}
			e = ast.Unparen(x.X)
		case *ast.IndexExpr:
			if tx := fc.t.info.TypeOf(x.X); tx == nil {
				return arrayRef{}, false
			} else if _, arr := tx.Underlying().(*types.Array); !arr {
				return arrayRef{}, false
			}
			e = ast.Unparen(x.X)
		default:
			return arrayRef{}, false
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
	if fc.scope != nil {
		// In a called function: a parameter standing for an array, or
		// memory the function does not make or assign.
		if id, ok := x.(*ast.Ident); ok {
			if ref, ok := fc.arrays[t.varOf(id)]; ok {
				return ref.key, ref.off, true
			}
		}
		if root := t.rootVar(x); root == nil || within(root.Pos(), fc.scope) || fc.written[root] {
			return "", nil, false
		}
	}
	switch e := x.(type) {
	case *ast.SliceExpr:
		// a[lo:hi]: a, from lo.
		key, off, ok := fc.arrayKey(e.X)
		lo := linForm{}
		if e.Low != nil {
			f, okLo := fc.form(e.Low, 0)
			ok, lo = ok && okLo, f
		}
		if _, str := t.info.TypeOf(e.X).Underlying().(*types.Basic); !ok || str {
			return "", nil, false
		}
		return key, off.add(lo, 1), true
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
