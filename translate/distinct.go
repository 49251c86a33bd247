package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
)

// Updates of shared elements in a parallel loop (hist[v%4]++, a[i/2] +=
// x, a[perm[i]] += x): an update reads the element it writes, so two
// iterations that update one element on two nodes each add to the value
// at the region's entry, and the merge would keep one of the two (or
// none is seen to conflict, where the two copies end equal). Where the
// translator cannot prove the element distinct per iteration (one of the
// place's indices distinct for distinct values of the loop variable), it
// tells the runtime (cape.Region.Updates), whose merge then makes any
// byte two nodes both changed a conflict, the job's error: a permutation
// runs, a histogram is refused at run time with the element named.

// sharedUpdate marks r (r.updates) if lhs, a place its loop body updates,
// is shared memory whose indices do not tell iterations apart
// (distinctIndex).
func (t *translator) sharedUpdate(r *region, lhs ast.Expr) {
	if r.loop != nil && r.loop.v != nil && t.derefs(r, lhs) {
		r.updates = true // through a pointer: where it points is not known
		return
	}
	v := t.rootVar(lhs)
	if v == nil || r.loop == nil || r.loop.v == nil || !t.sharedRoot(r, v) || v == r.loop.valueVar {
		return // the iteration's own memory, or not a loop with a variable
	}
	// A place with no index is invariantUpdates'.
	if len(indicesOf(lhs)) > 0 && !t.distinctPlace(r, lhs) {
		r.updates = true
	}
}

// calleeDistinct reports whether lhs, a place that the function d (a
// declaration or a literal), called
// from r's loop body with args standing for its parameters, updates, is
// the iteration's own or distinct per iteration: its root is a local of
// d or reached from an argument naming the iteration's own memory, or one
// of its indices is a parameter whose argument is a distinct index
// (distinctIndex).
func (t *translator) calleeDistinct(r *region, lhs ast.Expr, args map[*types.Var]ast.Expr, d ast.Node) bool {
	if r.loop == nil || r.loop.v == nil {
		return true
	}
	root := t.rootVar(lhs)
	switch {
	case root == nil:
		return false
	case args[root] != nil:
		// The parameter stands for its argument: through it, the
		// place is the argument's, unless the argument is a pointer
		// loaded from memory (ptrs[i]) or the place goes through
		// another pointer.
		if v := t.rootVar(args[root]); v != nil && (within(v.Pos(), r.stmt) || r.clauseOf[v] != "") && !t.isPointer(args[root]) {
			return true // the iteration's own memory, or a private copy
		}
		if t.derefsBelow(r, lhs) || t.loadedPointer(r, args[root]) {
			return false
		}
		if t.distinctPlace(r, args[root]) {
			return true // the iteration's row: scale(g.Rows[i], 2)
		}
	case within(root.Pos(), funcBody(d)):
		// A local of the function (not a parameter), unless a pointer
		// to what it is not known.
		return !t.derefs(r, lhs)
	case t.derefs(r, lhs):
		return false
	}
	for _, i := range indicesOf(lhs) {
		if id, ok := ast.Unparen(i).(*ast.Ident); ok {
			if v := t.varOf(id); v != nil && args[v] != nil && t.distinctIndex(r, args[v], 0) {
				return true
			}
		}
	}
	return false
}

// derefs reports whether the place e goes through a pointer (*p, *ps[i],
// p.f with p a pointer, items[i].cnt's pointee): two iterations' pointers
// may point to one element (ptrs := []*int{&a[0], &a[0]}), which the
// place's indices do not tell. A field of the struct a pointer variable
// declared outside the loop points to (g.Rows with g := &grid{}) is not
// counted: every iteration reaches the same struct, and the indices after
// it tell the elements apart.
func (t *translator) derefs(r *region, e ast.Expr) bool {
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.StarExpr:
			return true
		case *ast.SelectorExpr:
			if _, isIdent := ast.Unparen(x.X).(*ast.Ident); !isIdent && t.isPointer(x.X) {
				return true
			}
			e = ast.Unparen(x.X)
		case *ast.IndexExpr:
			if _, isIdent := ast.Unparen(x.X).(*ast.Ident); !isIdent && t.isPointer(x.X) {
				return true // (*[4]int)(p)[i] and the like
			}
			e = ast.Unparen(x.X)
		case *ast.Ident:
			// A pointer variable of the region's sequential code, or of
			// the package, points to one place for all iterations;
			// one of the iteration, or of a called function, may not.
			v := t.varOf(x)
			if v == nil || !t.isPointer(x) {
				return false
			}
			fixed := !within(v.Pos(), r.stmt) && (r.fn == nil || within(v.Pos(), r.fn) || v.Pkg() != nil && v.Parent() == v.Pkg().Scope())
			if def, ok := ast.Unparen(t.onlyDefinition(r, v)).(*ast.UnaryExpr); ok && def.Op == token.AND {
				// p := &work, work the iteration's own.
				if root := t.rootVar(def.X); root != nil && within(root.Pos(), r.stmt) && !t.derefs(r, def.X) {
					fixed = true
				}
			}
			return !fixed
		default:
			return false
		}
	}
}

// derefsBelow is derefs, not counting the place's root variable itself
// (a parameter standing for its argument).
func (t *translator) derefsBelow(r *region, e ast.Expr) bool {
	for e = ast.Unparen(e); ; {
		x := placeOperand(e)
		if x == nil {
			return false
		}
		if _, isIdent := x.(*ast.Ident); isIdent {
			return false
		}
		if t.derefs(r, e) {
			return true
		}
		e = x
	}
}

// placeOperand returns the operand that the place e selects, indexes or
// dereferences (x in x.f, x[i], *x), unparenthesized, or nil.
func placeOperand(e ast.Expr) ast.Expr {
	switch y := ast.Unparen(e).(type) {
	case *ast.StarExpr:
		return ast.Unparen(y.X)
	case *ast.SelectorExpr:
		return ast.Unparen(y.X)
	case *ast.IndexExpr:
		return ast.Unparen(y.X)
	}
	return nil
}

// loadedPointer reports whether e, an argument, is a pointer read from
// memory (ptrs[i], items[i].cnt) or held by a variable of the iteration or
// of a called function: not an address taken (&a[i]), a pointer variable
// of the region's sequential code, or a value of another type.
func (t *translator) loadedPointer(r *region, e ast.Expr) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND || !t.isPointer(e) {
		return false
	}
	if _, ok := e.(*ast.Ident); ok {
		return t.derefs(r, e)
	}
	return true
}

// isPointer reports whether e's type is a pointer.
func (t *translator) isPointer(e ast.Expr) bool {
	tv := t.info.TypeOf(e)
	if tv == nil {
		return false
	}
	_, ok := tv.Underlying().(*types.Pointer)
	return ok
}

// markWrites records in r.marks the statements of r's loop body (not of
// the functions it calls, nor of closures) that write a shared place not
// proved each iteration's own: an index not proved distinct
// (distinctPlace) that is read from memory or the same for every
// iteration, or a place through a pointer. Two nodes
// may write such a place, and a write that leaves its entry value is
// invisible to the merge: the runtime compares what the nodes left there
// (cape.Mark). Places whose expression has a call or a receive are not
// marked (Mark would evaluate them twice).
func (t *translator) markWrites(r *region) {
	if r.loop == nil || r.loop.v == nil {
		return
	}
	type write struct {
		st   ast.Stmt
		l    ast.Expr
		copy *ast.CallExpr // l is the destination of this copy
	}
	var writes []write
	ast.Inspect(r.body, func(n ast.Node) bool {
		var lhs []ast.Expr
		var cp *ast.CallExpr
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				lhs = x.Lhs
			}
		case *ast.IncDecStmt:
			lhs = []ast.Expr{x.X}
		case *ast.ExprStmt:
			if cp = t.copyCall(x.X); cp != nil {
				lhs = cp.Args[:1]
			}
		}
		st, ok := n.(ast.Stmt)
		if !ok || len(lhs) == 0 || !t.inList(st) {
			return true
		}
		for _, l := range lhs {
			writes = append(writes, write{st, l, cp})
		}
		return true
	})
	var formed []formedWrite
	for _, w := range writes {
		if fw, ok := t.formWrite(r, w.st, w.l, w.copy); ok {
			formed = append(formed, fw)
		}
	}
	apart, zeroOnly := t.overlaps(r, formed)
	warned := map[*types.Var]bool{}
	for _, w := range writes {
		if w.copy != nil {
			continue
		}
		if t.sharedScalar(r, w.l) {
			// shared(x): every iteration stores the same value, the
			// user says; the merge compares the nodes' whole values.
			r.marks = append(r.marks, markedWrite{stmt: w.st, place: w.l, whole: true})
			continue
		}
		if ok, at := t.markable(r, w.l); ok {
			if rd := t.readBeforeWrite(r, w.l, w.st); rd != nil {
				t.errorf(w.l.Pos(), "%s is read at %s and then written here, at the same place in every iteration of the parallel loop: a loop-carried dependence (each iteration reads what an earlier one wrote), where each node would read its own copy's value; use a reduction clause, or give each iteration a place of its own (a generator per iteration, an element per index)",
					t.text(w.l), t.where(rd.Pos()))
				continue
			}
			r.marks = append(r.marks, markedWrite{stmt: w.st, place: w.l, at: at})
			if as, ok := w.st.(*ast.AssignStmt); ok && as.Tok == token.ASSIGN {
				t.scratchWarning(r, w.l, warned) // (not an update: hist[k]++)
			}
			apart[w.l] = false
		}
	}
	for _, fw := range formed {
		if !apart[fw.place] {
			continue
		}
		m := markedWrite{stmt: fw.st, place: fw.place, at: fw.at}
		if fw.copy != nil {
			m.n = fw.copy.Args[1]
		}
		if zeroOnly[fw.place] {
			m.zero = t.zeroGuard(fw)
		}
		r.marks = append(r.marks, m)
	}
}

// readBeforeWrite returns a read of the place l, which the statement st of
// r's loop body assigns with a value that is not a constant, that comes
// before st in the body, where l is the same place in every iteration
// (it names no variable of the region): iteration i+1 reads what
// iteration i wrote (v := g.s*a + c; g.s = v). Elements are
// flowDependences', and a write one iteration makes is not carried. Nil
// otherwise.
func (t *translator) readBeforeWrite(r *region, l ast.Expr, st ast.Stmt) ast.Expr {
	as, ok := st.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != len(as.Rhs) {
		return nil
	}
	for i, x := range as.Lhs {
		if x == l {
			if tv, ok := t.info.Types[as.Rhs[i]]; ok && tv.Value != nil {
				return nil // a flag set to a constant (found = true)
			}
		}
	}
	if t.onceGuarded(r, st) {
		return nil // if i == n-1 { g.s = v }: one iteration writes it
	}
	skip := false
	ast.Inspect(l, func(n ast.Node) bool {
		if _, ok := n.(*ast.IndexExpr); ok {
			skip = true // an element: flowDependences judges it
		}
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := t.info.Uses[id].(*types.Var); ok && !v.IsField() && within(v.Pos(), r.stmt) {
				skip = true
			}
		}
		return !skip
	})
	root, text := t.rootVar(l), types.ExprString(l)
	if skip || root == nil {
		return nil
	}
	var found ast.Expr
	ast.Inspect(r.body, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if found != nil || !ok || n.Pos() >= st.Pos() {
			return found == nil
		}
		if _, lit := n.(*ast.FuncLit); lit {
			return false
		}
		switch e.(type) {
		case *ast.SelectorExpr, *ast.IndexExpr:
			if types.ExprString(e) == text && t.rootVar(e) == root && !t.assignedExpr(e) {
				found = e
			}
		}
		return found == nil
	})
	return found
}

// assignedExpr reports whether e is a left side of an assignment.
func (t *translator) assignedExpr(e ast.Expr) bool {
	as, ok := t.parent[e].(*ast.AssignStmt)
	return ok && slices.Contains(as.Lhs, e)
}

// sharedScalar reports whether l, a place r's loop body assigns, is a
// variable of plain value (a number, a struct or array of numbers) listed
// in shared.
func (t *translator) sharedScalar(r *region, l ast.Expr) bool {
	id, ok := ast.Unparen(l).(*ast.Ident)
	if !ok {
		return false
	}
	v := t.varOf(id)
	return v != nil && r.shared[v] && pointerFree(v.Type()) && !within(v.Pos(), r.stmt)
}

// scratchWarning warns, once per variable, where the marked place l is an
// element of a slice or array declared before the region at an index that
// is the same in every iteration, and the iterations read that variable
// too: scratch space every iteration reuses (work[k] = …; … work[k]),
// which go run allows and CAPE stops at run time unless every iteration
// leaves the same values there.
func (t *translator) scratchWarning(r *region, l ast.Expr, warned map[*types.Var]bool) {
	ix, ok := ast.Unparen(l).(*ast.IndexExpr)
	if !ok || !t.markPure(l) || t.followsLoopVar(r, ix.Index, 0) {
		return
	}
	id, ok := ast.Unparen(ix.X).(*ast.Ident)
	if !ok {
		return
	}
	v := t.varOf(id)
	if v == nil || warned[v] || within(v.Pos(), r.stmt) || r.clauseOf[v] != "" || r.shared[v] || !t.indexable(id) {
		return
	}
	read := false
	ast.Inspect(r.body, func(n ast.Node) bool {
		if u, ok := n.(*ast.Ident); ok && t.info.Uses[u] == v && !t.access(u).write {
			read = true
		}
		return !read
	})
	if !read {
		return
	}
	warned[v] = true
	t.warnf(&t.warnings, l.Pos(), "every iteration of the parallel loop writes %s at the same places, and reads %s: if %s is scratch space each iteration fills and uses, make it in the loop's body (%s := make(...)) so that each has its own; "+
		"as it is, the job stops at run time unless every iteration leaves the same values there", t.text(l), id.Name, id.Name, id.Name)
}

// copyCall returns e if it is a call of the built-in copy, else nil.
func (t *translator) copyCall(e ast.Expr) *ast.CallExpr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return nil
	}
	if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok && b.Name() == "copy" {
		return call
	}
	return nil
}

// markable reports whether the place l, written in r's loop body, is
// marked (markWrites), and, when its index is the one part of it that
// calls a function (a[half(i)]), that index expression.
func (t *translator) markable(r *region, l ast.Expr) (bool, *ast.IndexExpr) {
	l = ast.Unparen(l)
	if _, whole := l.(*ast.Ident); whole {
		return false, nil // a whole variable: refused or placed elsewhere
	}
	at, _ := l.(*ast.IndexExpr)
	if at != nil && (!t.markPure(at.X) || t.markPure(at.Index) || !t.indexable(at.X)) {
		at = nil
	}
	if at == nil && !t.markPure(l) && !t.getterPlace(l) {
		return false, nil
	}
	return t.markablePlace(r, l, at), at
}

// getterPlace reports whether the place l is rooted at a call of another
// package's getter returning a slice field (g.Vs()[k] standing for
// g.Vals[k], returnedField) and calls nothing else: Mark may evaluate it
// again.
func (t *translator) getterPlace(l ast.Expr) bool {
	call := t.writeRoot(l)
	if call == nil || !t.markPure(call.Fun) {
		return false
	}
	if fn, recv := t.getterCall(call); t.resultField(call, fn, recv) == nil {
		return false // (the package's own getters too: h.Vs()[0])
	}
	for _, a := range call.Args {
		if !t.markPure(a) {
			return false
		}
	}
	for _, ix := range indicesOf(l) {
		if !t.markPure(ix) {
			return false
		}
	}
	return true
}

// placeRootVar is the variable the place l is rooted at (rootVar), or,
// rooted at a call of another package's getter (getterPlace), the one
// the getter's receiver or argument is rooted at.
func (t *translator) placeRootVar(l ast.Expr) *types.Var {
	if v := t.rootVar(l); v != nil || !t.getterPlace(l) {
		return v
	}
	call := t.writeRoot(l)
	fn, recv := t.getterCall(call)
	if index, _, ok := t.foreign.returnedField(fn); ok && index >= 0 {
		return t.rootVar(call.Args[index])
	}
	return t.rootVar(recv)
}

// indexable reports whether x, indexed, is an element of a slice, an
// array or an array a pointer points to (not a map's).
func (t *translator) indexable(x ast.Expr) bool {
	switch u := t.info.TypeOf(x).Underlying().(type) {
	case *types.Slice, *types.Array:
		return true
	case *types.Pointer:
		_, ok := u.Elem().Underlying().(*types.Array)
		return ok
	}
	return false
}

// markPure reports whether evaluating e calls no function (conversions
// aside), receives nothing and indexes no map.
func (t *translator) markPure(e ast.Expr) bool {
	pure := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if tv, ok := t.info.Types[x.Fun]; !ok || !tv.IsType() {
				pure = false
			}
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				pure = false
			}
		case *ast.IndexExpr:
			if _, isMap := t.info.TypeOf(x.X).Underlying().(*types.Map); isMap {
				pure = false
			}
		}
		return pure
	})
	return pure
}

// markablePlace is markable's judgement of l's place; at, if not nil, is
// l itself, whose index calls functions (callIndexFacts).
func (t *translator) markablePlace(r *region, l ast.Expr, at *ast.IndexExpr) bool {
	if t.derefs(r, l) {
		v := t.rootVar(l)
		return v == nil || !r.shared[v]
	}
	root := t.placeRootVar(l)
	if root == nil || !t.sharedRoot(r, root) || root == r.loop.valueVar || r.shared[root] {
		return false // listed in shared: the user says the iterations' places differ
	}
	if t.distinctPlace(r, l) {
		return false
	}
	// Marked: an index read from memory (out[idx[i]]), or one place for
	// every iteration (buf[0]). An index computed from the iteration's
	// variables (a block's rows, i*m + j with i from the block's bounds)
	// is taken to be the iteration's: marking every write of a stencil
	// would cost more than it computes.
	varies := false
	for _, ix := range indicesOf(l) {
		if at != nil && ix == at.Index {
			v, shared := t.callIndexFacts(r, ix, nil, 0)
			if shared {
				return true
			}
			varies = varies || v
			continue
		}
		if t.readsMemory(r, ix, 0) || t.foldsLoopVar(r, ix, 0) || t.overlappingWindow(r, ix) {
			return true
		}
		varies = varies || t.followsLoopVar(r, ix, 0)
	}
	return !varies
}

// An argOf is what a parameter of a function an index calls stands for:
// the argument, in the code of the call (env nil: the loop body).
type argOf struct {
	e   ast.Expr
	env map[*types.Var]argOf
}

// callIndexFacts reads e, an index (or part of one) in r's loop body or,
// env not nil, in the returned expression of a function it calls, with
// the calls of the package's functions that return one expression read as
// that expression (at(i, j) returning i*n + j, half(i) returning i/2):
// varies if it changes with the loop variable, shared if several
// iterations may reach one value (a fold of what varies: /, %, >>, &,
// min or max with a fixed operand, a float truncated) or it reads memory.
// A call of any other function is taken to vary, and to be the
// iteration's own, as a stencil's indexing method would be: marking its
// writes would cost more than they compute.
func (t *translator) callIndexFacts(r *region, e ast.Expr, env map[*types.Var]argOf, depth int) (varies, shared bool) {
	if depth > 4 {
		return true, false
	}
	e = ast.Unparen(e)
	if env == nil && t.markPure(e) {
		return t.followsLoopVar(r, e, 0), t.readsMemory(r, e, 0) || t.foldsLoopVar(r, e, 0)
	}
	switch x := e.(type) {
	case *ast.Ident:
		if v, ok := t.info.Uses[x].(*types.Var); ok && env != nil {
			if a, ok := env[v]; ok {
				return t.callIndexFacts(r, a.e, a.env, depth+1)
			}
		}
		return false, false // a constant, or a package variable
	case *ast.BinaryExpr:
		vx, sx := t.callIndexFacts(r, x.X, env, depth)
		vy, sy := t.callIndexFacts(r, x.Y, env, depth)
		fold := vx && (x.Op == token.REM || x.Op == token.QUO || x.Op == token.SHR || x.Op == token.AND)
		return vx || vy, sx || sy || fold
	case *ast.UnaryExpr:
		v, sh := t.callIndexFacts(r, x.X, env, depth)
		return v, sh || x.Op == token.ARROW
	case *ast.SelectorExpr:
		if _, pkg := t.info.Uses[identOf(x.X)].(*types.PkgName); pkg {
			return false, false
		}
		return t.callIndexFacts(r, x.X, env, depth) // a field of what it stands for
	case *ast.IndexExpr, *ast.StarExpr:
		return true, true // an element read: the same value for several iterations, perhaps
	case *ast.CallExpr:
		return t.callFacts(r, x, env, depth)
	}
	return false, false // a literal
}

// callFacts is callIndexFacts of a call.
func (t *translator) callFacts(r *region, call *ast.CallExpr, env map[*types.Var]argOf, depth int) (varies, shared bool) {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() && len(call.Args) == 1 {
		v, sh := t.callIndexFacts(r, call.Args[0], env, depth)
		b, ok := t.info.TypeOf(call.Args[0]).Underlying().(*types.Basic)
		return v, sh || v && ok && b.Info()&types.IsFloat != 0 && isInteger(tv.Type)
	}
	if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok {
		switch b.Name() {
		case "len", "cap":
			return false, false
		case "min", "max":
			anyVaries, anyFixed, sh := false, false, false
			for _, a := range call.Args {
				v, s := t.callIndexFacts(r, a, env, depth)
				anyVaries, anyFixed, sh = anyVaries || v, anyFixed || !v, sh || s
			}
			return anyVaries, sh || anyVaries && anyFixed
		}
		return true, false
	}
	var d *ast.FuncDecl
	if fn := t.staticCallee(call); fn != nil {
		d = t.facts.decls[fn.Origin()]
	}
	if d == nil || d.Body == nil || len(d.Body.List) != 1 || call.Ellipsis.IsValid() {
		return true, false
	}
	ret, ok := d.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return true, false
	}
	inner := map[*types.Var]argOf{}
	if d.Recv != nil && len(d.Recv.List) == 1 && len(d.Recv.List[0].Names) == 1 {
		v, _ := t.info.Defs[d.Recv.List[0].Names[0]].(*types.Var)
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && v != nil {
			inner[v] = argOf{sel.X, env}
		}
	}
	k := 0
	for _, f := range d.Type.Params.List {
		for _, name := range f.Names {
			if v, ok := t.info.Defs[name].(*types.Var); ok && k < len(call.Args) {
				inner[v] = argOf{call.Args[k], env}
			}
			k++
		}
	}
	return t.callIndexFacts(r, ret.Results[0], inner, depth+1)
}

// followsLoopVar reports whether e changes with r's loop variable: it
// mentions it, a local of the body defined from it, or the counter of an
// inner loop whose start or bound does (a block's rows). An inner counter
// that takes the same values in every iteration does not.
func (t *translator) followsLoopVar(r *region, e ast.Node, depth int) bool {
	if depth > 4 {
		return true
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || found {
			return !found
		}
		v := t.varOf(id)
		switch {
		case v == nil || !within(v.Pos(), r.stmt):
		case v == r.loop.v || v == r.loop.valueVar:
			found = true
		case t.onlyDefinition(r, v) != nil:
			found = t.followsLoopVar(r, t.onlyDefinition(r, v), depth+1)
		default:
			bounds, ok := t.counterBounds(r, v)
			found = !ok // assigned in ways not followed
			for _, e := range bounds {
				found = found || t.followsLoopVar(r, e, depth+1)
			}
		}
		return !found
	})
	return found
}

// counterBounds returns the expressions that set the values of v, the
// counter of a loop of r's body: its start and the bound its condition
// compares it with, or its range expression; false if v is no such
// counter (or its condition is not a comparison of it).
func (t *translator) counterBounds(r *region, v *types.Var) ([]ast.Expr, bool) {
	switch x := t.counterLoop(r, v).(type) {
	case *ast.ForStmt:
		bound := t.boundOf(x.Cond, v)
		return []ast.Expr{x.Init.(*ast.AssignStmt).Rhs[0], bound}, bound != nil
	case *ast.RangeStmt:
		return []ast.Expr{x.X}, true
	}
	return nil, false
}

// counterLoop returns the loop of r's body whose counter v is (for v :=
// start; …, with v alone on the left, or for v := range …), or nil.
func (t *translator) counterLoop(r *region, v *types.Var) ast.Stmt {
	var loop ast.Stmt
	ast.Inspect(r.body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ForStmt:
			if a, ok := x.Init.(*ast.AssignStmt); ok && a.Tok == token.DEFINE && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok && t.varOf(id) == v {
					loop = x
				}
			}
		case *ast.RangeStmt:
			if id, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE && t.varOf(id) == v {
				loop = x
			}
		}
		return loop == nil
	})
	return loop
}

// boundOf returns the side of cond, a loop's condition, that v is
// compared with (n in j < n), or nil.
func (t *translator) boundOf(cond ast.Expr, v *types.Var) ast.Expr {
	b, ok := cond.(*ast.BinaryExpr)
	if !ok {
		return nil
	}
	if id, ok := ast.Unparen(b.X).(*ast.Ident); ok && t.varOf(id) == v {
		return b.Y
	}
	if id, ok := ast.Unparen(b.Y).(*ast.Ident); ok && t.varOf(id) == v {
		return b.X
	}
	return nil
}

// foldsLoopVar reports whether e folds r's loop variable (or what follows
// it) into fewer values: a remainder, a division, a right shift or a mask
// of it (a[i%10], a[i/2]), so that several iterations write one place.
func (t *translator) foldsLoopVar(r *region, e ast.Expr, depth int) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if (x.Op == token.REM || x.Op == token.QUO || x.Op == token.SHR || x.Op == token.AND) && t.followsLoopVar(r, x.X, depth) {
				found = true
			}
			// i*z with z defined once as 0: every iteration one element.
			if x.Op == token.MUL && (t.zeroVar(x.Y) && t.followsLoopVar(r, x.X, depth) || t.zeroVar(x.X) && t.followsLoopVar(r, x.Y, depth)) {
				found = true
			}
		case *ast.CallExpr:
			found = t.foldingCall(r, x, depth)
		case *ast.Ident:
			if v := t.varOf(x); v != nil && within(v.Pos(), r.body) && depth < 4 {
				if def := t.onlyDefinition(r, v); def != nil && t.foldsLoopVar(r, def, depth+1) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// overlappingWindow reports whether the index e adds to an index that
// moves by a constant stride with the loop variable a term that takes more
// values in one iteration than that stride (a[i+j] with j < 3, a[i*4+j]
// with j <= 4): neighbouring iterations then write common elements.
func (t *translator) overlappingWindow(r *region, e ast.Expr) bool {
	x, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || x.Op != token.ADD && x.Op != token.SUB {
		return false
	}
	wider := func(base, term ast.Expr) bool {
		if !t.distinctIndex(r, base, 1) {
			return false
		}
		k, ok := t.iterStride(r, base)
		if !ok || k <= 0 {
			return false
		}
		w, ok := t.termWidth(r, term)
		return ok && w > k
	}
	return wider(x.X, x.Y) || x.Op == token.ADD && wider(x.Y, x.X)
}

// iterStride returns how far the index base (stride) moves from one
// iteration of r's loop to the next: its stride times the loop's constant
// step (i += 2: twice the stride); false if the step is not a constant.
func (t *translator) iterStride(r *region, base ast.Expr) (int64, bool) {
	k, ok := t.stride(r, base, 1)
	if !ok {
		return 0, false
	}
	if r.loop.step == nil {
		return k, true
	}
	s, ok := t.constValue(r.loop.step)
	if !ok || s == 0 {
		return 0, false
	}
	return k * max(s, -s), true
}

// loopVarFits reports whether e is r's loop variable and every value the
// loop gives it (constant bounds) is a value of the integer type to:
// converting it then keeps it (uint8(i) for i < 200).
func (t *translator) loopVarFits(r *region, e ast.Expr, to types.Type) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	li := r.loop
	if !ok || t.varOf(id) != li.v {
		return false
	}
	var lo, hi int64
	switch {
	case li.lo != nil:
		a, ok1 := t.constValue(li.lo)
		b, ok2 := t.constValue(li.hi)
		if !ok1 || !ok2 {
			return false
		}
		lo, hi = min(a, b), max(a, b) // the bound itself included, either way
	case li.rangeInt:
		n, ok := t.constValue(li.rangeX)
		if !ok {
			return false
		}
		lo, hi = 0, max(n, 0)
	default:
		return false
	}
	dst, ok := to.Underlying().(*types.Basic)
	if !ok {
		return false
	}
	bits := intBits(dst)
	if dst.Info()&types.IsUnsigned != 0 {
		return lo >= 0 && (bits >= 63 || hi < 1<<bits)
	}
	return bits >= 64 || lo >= -(1<<(bits-1)) && hi < 1<<(bits-1)
}

// zeroVar reports whether e is 0 or a variable whose one value is the
// constant 0 (z := 0, assigned nowhere else).
func (t *translator) zeroVar(e ast.Expr) bool {
	v, ok := t.constValue(e)
	return ok && v == 0
}

// constValue returns the value of e, an integer constant or a variable
// whose one value is one (w := 5, assigned nowhere else).
func (t *translator) constValue(e ast.Expr) (int64, bool) {
	if constIntOK(t.info, e) {
		return constInt(t.info, e), true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return 0, false
	}
	v := t.varOf(id)
	if v == nil {
		return 0, false
	}
	srcs := t.facts.sources[v]
	if len(srcs) != 1 || srcs[0].expr == nil {
		return 0, false
	}
	for _, u := range t.facts.uses[v] {
		if x, ok := t.parent[u].(*ast.UnaryExpr); ok && x.Op == token.AND {
			return 0, false // fmt.Sscan(s, &w) may change it
		}
	}
	val := t.info.Types[srcs[0].expr].Value
	if val == nil || val.Kind() != constant.Int {
		return 0, false
	}
	n, exact := constant.Int64Val(val)
	return n, exact
}

// foldingCall reports whether call maps several values of r's loop
// variable to one: min or max of it and something that does not follow
// it (min(i, 5)), a conversion of a floating-point value that follows it
// to an integer (int(float64(i) * 0.5)), or a conversion to a narrower
// integer type (uint8(i), which wraps).
func (t *translator) foldingCall(r *region, call *ast.CallExpr, depth int) bool {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		if len(call.Args) != 1 || !isInteger(tv.Type) {
			return false
		}
		b, ok := t.info.TypeOf(call.Args[0]).Underlying().(*types.Basic)
		if ok && b.Info()&types.IsInteger != 0 && !t.widening(call.Args[0], tv.Type) {
			return t.followsLoopVar(r, call.Args[0], depth) && !t.loopVarFits(r, call.Args[0], tv.Type)
		}
		return ok && b.Info()&types.IsFloat != 0 && t.followsLoopVar(r, call.Args[0], depth)
	}
	b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
	if !ok || b.Name() != "min" && b.Name() != "max" {
		return false
	}
	follows, fixed := false, false
	for _, a := range call.Args {
		if t.followsLoopVar(r, a, depth) {
			follows = true
		} else {
			fixed = true
		}
	}
	return follows && fixed
}

// readsMemory reports whether the index e reads memory: an element, a
// pointer's target, a call, or a local of r's loop body defined from one
// (j := bucket[i]) or assigned more than once.
func (t *translator) readsMemory(r *region, e ast.Expr, depth int) bool {
	if depth > 4 {
		return true
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IndexExpr, *ast.StarExpr:
			found = true
		case *ast.CallExpr:
			if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() {
				break
			}
			if b, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); ok {
				switch b.Name() {
				case "len", "cap":
					return false // a length, not the elements
				case "min", "max":
					return true // their operands say
				}
			}
			found = true
		case *ast.Ident:
			v := t.varOf(x)
			if v == nil || !within(v.Pos(), r.body) || v == r.loop.v {
				break
			}
			if def := t.onlyDefinition(r, v); def != nil {
				found = t.readsMemory(r, def, depth+1)
			} else if !t.pureVar(r, v) {
				found = true // assigned more than once, and not a counter
			}
		}
		return !found
	})
	return found
}

// mentionsIteration reports whether e mentions a variable of r's loop
// statement (the loop variable, a local or counter of the body).
func (t *translator) mentionsIteration(r *region, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v := t.varOf(id); v != nil && within(v.Pos(), r.stmt) {
				found = true
			}
		}
		return !found
	})
	return found
}

// funcBody returns the body of d, a function declaration or literal.
func funcBody(d ast.Node) ast.Node {
	switch f := d.(type) {
	case *ast.FuncDecl:
		if f.Body != nil {
			return f.Body
		}
	case *ast.FuncLit:
		return f.Body
	}
	return d
}

// indicesOf returns the indices of the place e (a[i].f[j] → j, i), down
// its indexes, selectors and dereferences, with the low bound of a slice
// expression (a[lo:hi] → lo) and through an address taken.
func indicesOf(e ast.Expr) []ast.Expr {
	var idx []ast.Expr
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.IndexExpr:
			idx = append(idx, x.Index)
			e = ast.Unparen(x.X)
		case *ast.SliceExpr:
			if x.Low != nil {
				idx = append(idx, x.Low)
			}
			e = ast.Unparen(x.X)
		case *ast.SelectorExpr:
			e = ast.Unparen(x.X)
		case *ast.StarExpr:
			e = ast.Unparen(x.X)
		case *ast.UnaryExpr:
			e = ast.Unparen(x.X)
		default:
			return idx
		}
	}
}

// distinctPlace reports whether the place e (an argument) is one element
// per iteration: one of its indices is distinct (distinctIndex), or it is
// a slice of an array or slice from a distinct index on (a[i*m:(i+1)*m]).
func (t *translator) distinctPlace(r *region, e ast.Expr) bool {
	for _, i := range indicesOf(e) {
		if t.distinctIndex(r, i, 0) {
			return true
		}
	}
	return false
}

// distinctIndex reports whether the index expression e takes distinct
// values for distinct values of r's loop variable: the variable itself;
// ±e, e converted to an integer type at least as wide, e·c, c·e and e<<c
// with c a non-zero constant (a variable could be 0: every iteration one
// element), e±c, c+e where c is the same in every iteration (reads no
// memory but variables, and no counter of a loop inside the body:
// invariantIndex), or where e is the loop variable times a constant k
// (its stride) and c ranges over at most k values in an iteration (a
// counter of an inner loop with constant bounds, or a remainder by a
// constant: a flattened row a[i*4+j], j < 4); or a local of the body
// defined once as such an expression.
func (t *translator) distinctIndex(r *region, e ast.Expr, depth int) bool {
	if depth > 8 {
		return false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v := t.varOf(x)
		if v == nil {
			return false
		}
		if v == r.loop.v {
			return true
		}
		def := t.onlyDefinition(r, v)
		return def != nil && t.distinctIndex(r, def, depth+1)
	case *ast.UnaryExpr:
		return (x.Op == token.SUB || x.Op == token.ADD) && t.distinctIndex(r, x.X, depth+1)
	case *ast.CallExpr:
		// A conversion that keeps every value: int(i), int64(i); not
		// uint8(i), which wraps.
		if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return t.widening(x.Args[0], tv.Type) && t.distinctIndex(r, x.Args[0], depth+1)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.ADD:
			return t.distinctPlus(r, x.X, x.Y, depth) || t.distinctPlus(r, x.Y, x.X, depth)
		case token.SUB:
			return t.distinctPlus(r, x.X, x.Y, depth)
		case token.MUL:
			return t.distinctIndex(r, x.X, depth+1) && constInt(t.info, x.Y) != 0 ||
				t.distinctIndex(r, x.Y, depth+1) && constInt(t.info, x.X) != 0
		case token.SHL:
			return t.distinctIndex(r, x.X, depth+1) && smallShift(t.info, x.Y)
		}
	}
	return false
}

// distinctPlus reports whether e plus (or minus) the term c is a distinct
// index (distinctIndex): e is, and c is the same in every iteration, or
// ranges over no more values in one than e's stride.
func (t *translator) distinctPlus(r *region, e, c ast.Expr, depth int) bool {
	if !t.distinctIndex(r, e, depth+1) {
		return false
	}
	if t.invariantIndex(r, c) {
		return true
	}
	k, ok := t.stride(r, e, depth+1)
	if !ok || k <= 0 {
		return false
	}
	w, ok := t.termWidth(r, c)
	return ok && w <= k
}

// stride returns k where e is the loop variable times the constant k
// (i, i*4, 4*i, i<<2, a local defined once so, converted without loss).
func (t *translator) stride(r *region, e ast.Expr, depth int) (int64, bool) {
	if depth > 8 {
		return 0, false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v := t.varOf(x)
		if v == nil {
			return 0, false
		}
		if v == r.loop.v {
			return 1, true
		}
		if def := t.onlyDefinition(r, v); def != nil {
			return t.stride(r, def, depth+1)
		}
	case *ast.CallExpr:
		if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 && t.widening(x.Args[0], tv.Type) {
			return t.stride(r, x.Args[0], depth+1)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.MUL:
			if k := constInt(t.info, x.Y); k > 0 {
				s, ok := t.stride(r, x.X, depth+1)
				return s * k, ok && s <= 1<<31 && k <= 1<<31
			}
			if k := constInt(t.info, x.X); k > 0 {
				s, ok := t.stride(r, x.Y, depth+1)
				return s * k, ok && s <= 1<<31 && k <= 1<<31
			}
		case token.SHL:
			if smallShift(t.info, x.Y) {
				s, ok := t.stride(r, x.X, depth+1)
				return s << constInt(t.info, x.Y), ok && s <= 1<<31
			}
		}
	}
	return 0, false
}

// termWidth returns how many values the term c, added to a distinct index,
// may take within one iteration: a constant (1), the counter of an inner
// loop with constant bounds (for j := 0; j < 4; j++, for j := range 4), a
// remainder of a non-negative counter by a constant k (at most k).
func (t *translator) termWidth(r *region, c ast.Expr) (int64, bool) {
	if constIntOK(t.info, c) {
		return 1, true
	}
	switch x := ast.Unparen(c).(type) {
	case *ast.Ident:
		if v := t.varOf(x); v != nil {
			if lo, hi, ok := t.counterRange(r, v); ok {
				return hi - lo, true
			}
		}
	case *ast.BinaryExpr:
		if x.Op != token.REM {
			break
		}
		k := constInt(t.info, x.Y)
		if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && k > 0 {
			if v := t.varOf(id); v != nil {
				if lo, hi, ok := t.counterRange(r, v); ok && lo >= 0 {
					return min(k, hi-lo), true
				}
			}
		}
	}
	return 0, false
}

// counterRange returns the values [lo, hi) that v, the counter of a loop
// of r's body, takes: for v := lo; v < hi; v++ (or v <= hi-1), or for v :=
// range hi, lo and hi constants, v assigned nowhere else in the body.
func (t *translator) counterRange(r *region, v *types.Var) (lo, hi int64, ok bool) {
	switch x := t.counterLoop(r, v).(type) {
	case *ast.ForStmt:
		start := x.Init.(*ast.AssignStmt).Rhs[0]
		b, isBin := x.Cond.(*ast.BinaryExpr)
		inc, isInc := x.Post.(*ast.IncDecStmt)
		if !isBin || !isInc || inc.Tok != token.INC || t.boundOf(b, v) != b.Y {
			return 0, 0, false
		}
		first, ok1 := t.constValue(start)
		bound, ok2 := t.constValue(b.Y)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		switch b.Op {
		case token.LSS:
			lo, hi = first, bound
		case token.LEQ:
			lo, hi = first, bound+1
		default:
			return 0, 0, false
		}
		// Its own post statement is the one change allowed.
		return lo, hi, hi > lo && t.changes(r, v) == 1
	case *ast.RangeStmt:
		if !constIntOK(t.info, x.X) {
			return 0, 0, false
		}
		return 0, constInt(t.info, x.X), constInt(t.info, x.X) > 0 && t.changes(r, v) == 0
	}
	return 0, 0, false
}

// changes counts the statements of r's body that change v after its
// definition: assignments, increments, and taking its address.
func (t *translator) changes(r *region, v *types.Var) int {
	n := 0
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && t.varOf(id) == v
	}
	ast.Inspect(r.body, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, l := range x.Lhs {
					if is(l) {
						n++
					}
				}
			}
		case *ast.IncDecStmt:
			if is(x.X) {
				n++
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND && is(x.X) {
				n++
			}
		}
		return true
	})
	return n
}

// invariantIndex reports whether e, a term added to a distinct index, is
// the same in every iteration: pureIndex, with no counter of a loop inside
// the body (nor a local defined from one).
func (t *translator) invariantIndex(r *region, e ast.Expr) bool {
	if !t.pureIndex(r, e) {
		return false
	}
	invariant := true
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v := t.varOf(id); v != nil && within(v.Pos(), r.body) {
				def := t.onlyDefinition(r, v)
				invariant = invariant && def != nil && t.invariantIndex(r, def)
			}
		}
		return invariant
	})
	return invariant
}

// widening reports whether converting e to type to keeps every value of
// e's integer type (a type at least as wide; a constant fits).
func (t *translator) widening(e ast.Expr, to types.Type) bool {
	from, ok1 := t.info.TypeOf(e).Underlying().(*types.Basic)
	dst, ok2 := to.Underlying().(*types.Basic)
	if !ok1 || !ok2 || from.Info()&types.IsInteger == 0 || dst.Info()&types.IsInteger == 0 {
		return false
	}
	return intBits(dst) >= intBits(from) && (from.Info()&types.IsUnsigned == 0 || dst.Info()&types.IsUnsigned != 0 || intBits(dst) > intBits(from))
}

// intBits is the width of an integer type (int, uint and uintptr as on
// the 64-bit targets CAPE runs on).
func intBits(b *types.Basic) int {
	switch b.Kind() {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	}
	return 64
}

// constInt returns e's value if e is an integer constant that fits in an
// int64, else 0.
func constInt(info *types.Info, e ast.Expr) int64 {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return 0
	}
	v, exact := constant.Int64Val(constant.ToInt(tv.Value))
	if !exact {
		return 0
	}
	return v
}

// smallShift reports whether e is a constant shift count below 32 (a
// variable count may be the width or more: every value shifted out).
func smallShift(info *types.Info, e ast.Expr) bool {
	k := constInt(info, e)
	return constIntOK(info, e) && k >= 0 && k < 32
}

// constIntOK reports whether e is an integer constant that fits in an
// int64.
func constIntOK(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	_, exact := constant.Int64Val(constant.ToInt(tv.Value))
	return exact
}

// pureIndex reports whether e, a term added to a distinct
// index, reads no element of memory (no index, call or dereference but
// conversions, len and cap) and does not depend on the loop variable.
func (t *translator) pureIndex(r *region, e ast.Expr) bool {
	pure := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IndexExpr, *ast.StarExpr, *ast.FuncLit:
			pure = false
		case *ast.CallExpr:
			if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() {
				break
			}
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
				if b, ok := t.info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
					break
				}
			}
			pure = false
		case *ast.Ident:
			if v := t.varOf(x); v != nil && !t.pureVar(r, v) {
				pure = false
			}
		}
		return pure
	})
	return pure
}

// pureVar reports whether the variable v may be a term of a distinct
// index (pureIndex): one declared outside the loop's body but the loop's
// own variables, the counter of a loop inside the body (for j := 0; …,
// for j := range …), or a local of the body defined once as a pure
// expression.
func (t *translator) pureVar(r *region, v *types.Var) bool {
	if v == r.loop.v || v == r.loop.valueVar {
		return false
	}
	if !within(v.Pos(), r.body) {
		return true
	}
	counter := false
	ast.Inspect(r.body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ForStmt:
			if a, ok := x.Init.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
				for _, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok && t.varOf(id) == v {
						counter = true
					}
				}
			}
		case *ast.RangeStmt:
			if id, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE && t.varOf(id) == v {
				counter = true
			}
		}
		return !counter
	})
	if counter {
		return true
	}
	def := t.onlyDefinition(r, v)
	return def != nil && t.pureIndex(r, def)
}

// onlyDefinition returns the expression a local v of r's loop body is
// defined as (v := e, var v = e) if that is its only assignment in the
// body; else nil.
func (t *translator) onlyDefinition(r *region, v *types.Var) ast.Expr {
	if !within(v.Pos(), r.body) {
		return nil
	}
	var def ast.Expr
	count := 0
	ast.Inspect(r.body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for k, l := range x.Lhs {
				id, ok := ast.Unparen(l).(*ast.Ident)
				if !ok || t.varOf(id) != v {
					continue
				}
				count++
				if x.Tok == token.DEFINE && len(x.Lhs) == len(x.Rhs) {
					def = x.Rhs[k]
				}
			}
		case *ast.ValueSpec:
			for k, id := range x.Names {
				if t.varOf(id) == v {
					count++
					if len(x.Values) == len(x.Names) {
						def = x.Values[k]
					}
				}
			}
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && t.varOf(id) == v {
				count++
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && x.Op == token.AND && t.varOf(id) == v {
				count++ // its address is taken: it may change through it
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok && t.varOf(id) == v {
					count++
				}
			}
		}
		return true
	})
	if count != 1 {
		return nil
	}
	return def
}
