package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// loc says where the memory written by an access lives.
type loc int

const (
	locNone    loc = iota // not memory (a non-addressable value)
	locOwn                // the variable's own storage
	locRef                // the memory the variable (a slice or pointer) refers to
	locUnknown            // memory reached through something else (a field holding a slice, ...)
	locMap                // a map entry
	locChan               // a channel's buffer (a send, a receive, a close)
)

// An access is how one use of a variable touches memory.
type access struct {
	write    bool
	loc      loc
	indexed  bool // own storage written through an array index or slice (not the whole variable)
	appendTo bool // the first argument of append
	expr     ast.Expr
	// ref is the expression whose value (a slice or pointer) refers to the
	// memory written, when loc is locRef or locUnknown: a[i] for a[i][j] = v.
	ref ast.Expr
}

// pointsOf returns dflt if values of type typ refer to other memory
// (slices, pointers), locNone otherwise.
func pointsOf(typ types.Type, dflt loc) loc {
	if typ == nil {
		return locNone
	}
	switch typ.Underlying().(type) {
	case *types.Slice, *types.Pointer:
		return dflt
	}
	return locNone
}

// access classifies the use id of a variable: which memory the enclosing
// expression reads or writes. Anything that may write (assignment, ++,
// taking the address, passing a slice or pointer to a call, a pointer
// method) counts as a write.
func (t *translator) access(id *ast.Ident) access {
	w := &accessWalk{id: id, e: id, l: locOwn, pt: pointsOf(t.info.TypeOf(id), locRef)}
	if sel, ok := t.parent[id].(*ast.SelectorExpr); ok && sel.Sel == id {
		if pn, pkg := t.info.Uses[identOf(sel.X)].(*types.PkgName); pkg && !t.foreign.standard(pn.Imported().Path()) {
			// pkg.V: the variable of another package is the whole
			// selector (the standard library's, os.Stdout, are read).
			w.e = sel
		}
	}
	for {
		a, up := t.climb(w)
		if a != nil {
			return *a
		}
		if !up {
			return t.useOf(w)
		}
	}
}

// accessWalk is the state of access's climb from a use of a variable up
// through the expressions that select, index, dereference, convert or
// slice it.
type accessWalk struct {
	id      *ast.Ident // the use
	e       ast.Expr   // the expression reached so far
	l       loc        // where the memory of e lives
	pt      loc        // where the memory e's value refers to lives, locNone if nowhere
	indexed bool       // e is part of the variable's own storage, not all of it
	lref    ast.Expr   // the ref of l, when l is locRef or locUnknown
}

// read is the access of a use that writes nothing.
func (w *accessWalk) read() access { return access{expr: w.id} }

// write is the access of a use that writes the memory at.
func (w *accessWalk) write(at loc) access {
	return access{write: true, loc: at, indexed: w.indexed, expr: w.e, ref: w.lref}
}

// writePt is the access of a use that writes through the value of e itself.
func (w *accessWalk) writePt() access {
	return access{write: true, loc: w.pt, indexed: w.indexed, expr: w.e, ref: w.e}
}

// decided ends the climb with the access a.
func decided(a access) (*access, bool) { return &a, false }

// climb moves w up one expression. It returns the access when the parent
// decides it, up when w moved, and neither when the parent is not part of
// the selection (useOf then classifies it).
func (t *translator) climb(w *accessWalk) (a *access, up bool) {
	switch p := t.parent[w.e].(type) {
	case *ast.ParenExpr:
		w.e = p
		return nil, true
	case *ast.SelectorExpr:
		return t.climbSelector(w, p)
	case *ast.IndexExpr:
		if p.X != w.e {
			return nil, false
		}
		switch t.info.TypeOf(w.e).Underlying().(type) {
		case *types.Slice, *types.Pointer:
			w.l, w.lref = w.pt, w.e
		case *types.Array:
			w.indexed = true
		case *types.Map:
			w.l = locMap
		default:
			return decided(w.read())
		}
		w.pt = pointsOf(t.info.TypeOf(p), locUnknown)
		w.e = p
		return nil, true
	case *ast.StarExpr:
		w.l, w.lref = w.pt, w.e
		w.pt = pointsOf(t.info.TypeOf(p), locUnknown)
		w.e = p
		return nil, true
	case *ast.CallExpr:
		// A conversion to a slice, pointer or interface type still
		// refers to the same memory (sort.Sort(byKey(s)) writes s).
		tv, ok := t.info.Types[p.Fun]
		if !ok || !tv.IsType() || len(p.Args) != 1 || p.Args[0] != w.e {
			return nil, false
		}
		switch tv.Type.Underlying().(type) {
		case *types.Slice, *types.Pointer, *types.Interface:
		default:
			return decided(w.read())
		}
		w.e = p
		return nil, true
	case *ast.TypeAssertExpr:
		// The asserted value refers to the memory the interface value
		// does (s.(*box).w[i] = v writes what s holds); it is traced
		// through the interface's values (needExpr).
		if p.X != w.e || p.Type == nil {
			return nil, false
		}
		w.l, w.pt = locNone, pointsOf(t.info.TypeOf(p), locUnknown)
		w.e = p
		return nil, true
	case *ast.SliceExpr:
		if p.X != w.e {
			return nil, false
		}
		switch t.info.TypeOf(w.e).Underlying().(type) {
		case *types.Array:
			w.pt, w.indexed = w.l, true
		case *types.Slice, *types.Pointer:
		default:
			return decided(w.read())
		}
		w.l = locNone
		w.e = p
		return nil, true
	}
	return nil, false
}

// climbSelector moves w up through the selector p: a field moves on, a
// method value or call ends the climb (a pointer receiver may write).
func (t *translator) climbSelector(w *accessWalk, p *ast.SelectorExpr) (*access, bool) {
	if p.X != w.e {
		return nil, false
	}
	sel := t.info.Selections[p]
	if sel == nil {
		return nil, false
	}
	if sel.Kind() == types.FieldVal {
		if _, ok := t.info.TypeOf(w.e).Underlying().(*types.Pointer); ok {
			w.l, w.lref = w.pt, w.e
		}
		w.pt = pointsOf(t.info.TypeOf(p), locUnknown)
		w.e = p
		return nil, true
	}
	fn, ok := sel.Obj().(*types.Func)
	if !ok {
		return decided(w.read())
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return decided(w.read())
	}
	if _, ptrRecv := recv.Type().Underlying().(*types.Pointer); !ptrRecv {
		switch {
		case !t.writesValueRecv(fn):
		case w.pt != locNone:
			return decided(w.writePt()) // v.Axpy(a, x) on a named slice type writes v's elements
		case isStruct(t.info.TypeOf(w.e)):
			// m.Set(i, j, v) with func (m VMat) Set: the copy's slices
			// are m's; what they refer to is written.
			return decided(access{write: true, loc: locUnknown, indexed: w.indexed, expr: w.e, ref: w.e})
		}
		return decided(w.read())
	}
	if t.stdRecvRead(fn, w.e) {
		return decided(w.read()) // f.ReadAt(buf, off), img.At(x, y), lg.Printf(...), out.WriteString(s)
	}
	if fn.Pkg() == t.p.types {
		// The package's own method, whose source shows it only reads
		// its receiver (s.idx(i) returning i % s.N): a read here (its
		// body is walked where it is called).
		if u := t.foreign.paramUse(fn, -1); u.known && !u.writes {
			return decided(w.read())
		}
	}
	if _, isPtr := t.info.TypeOf(w.e).Underlying().(*types.Pointer); isPtr {
		return decided(w.writePt())
	}
	w.indexed = true // a method may write any part
	return decided(w.write(w.l))
}

// writesValueRecv reports whether fn, a method with a value receiver of
// another package, may write through what its receiver refers to (a
// named slice type's elements): unless its source shows it only reads
// them. Of the standard library's, sort's Sort and Swap do (Float64Slice,
// IntSlice, StringSlice). The package's own methods are walked where
// they are called.
func (t *translator) writesValueRecv(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg() == t.p.types {
		return false
	}
	if t.foreign.standard(fn.Pkg().Path()) {
		return fn.Pkg().Path() == "sort" && (fn.Name() == "Sort" || fn.Name() == "Swap")
	}
	u := t.foreign.callerRecvUse(fn)
	return !u.known || u.writes || u.view
}

// isStruct reports whether typ is a struct type.
func isStruct(typ types.Type) bool {
	if typ == nil {
		return false
	}
	_, ok := typ.Underlying().(*types.Struct)
	return ok
}

// useOf classifies the use of w.e by its parent, the statement or
// expression that reads or writes it.
func (t *translator) useOf(w *accessWalk) access {
	switch p := t.parent[w.e].(type) {
	case *ast.AssignStmt:
		for _, lhs := range p.Lhs {
			if lhs == w.e {
				return w.write(w.l)
			}
		}
	case *ast.IncDecStmt:
		return w.write(w.l)
	case *ast.SendStmt:
		if p.Chan == w.e {
			return w.write(locChan)
		}
	case *ast.RangeStmt:
		if (p.Key == w.e || p.Value == w.e) && p.Tok == token.ASSIGN {
			return w.write(w.l)
		}
		if p.X == w.e && isChan(t.info.TypeOf(w.e)) {
			return w.write(locChan)
		}
	case *ast.UnaryExpr:
		if p.Op == token.ARROW {
			return w.write(locChan)
		}
		if p.Op == token.AND {
			if w.e == ast.Expr(w.id) {
				// &v escapes: a scalar is written whole, an aggregate
				// perhaps in parts.
				_, basic := t.info.TypeOf(w.id).Underlying().(*types.Basic)
				w.indexed = !basic
			}
			return w.write(w.l)
		}
	case *ast.CallExpr:
		return t.callUse(w, p)
	}
	return w.read()
}

// callUse classifies w.e used in the call p: as an argument of a builtin,
// of a conversion, or of a function that may write through it.
func (t *translator) callUse(w *accessWalk, p *ast.CallExpr) access {
	if p.Fun == w.e {
		return w.read()
	}
	if b, ok := t.info.Uses[calleeIdent(p)].(*types.Builtin); ok {
		return builtinUse(w, b, p)
	}
	if tv, ok := t.info.Types[p.Fun]; ok && tv.IsType() {
		return w.read() // a conversion
	}
	if isChan(t.info.TypeOf(w.e)) {
		return w.write(locChan) // the callee may send or receive
	}
	if w.pt != locNone && !t.readsArg(p, w.e) {
		return w.writePt() // the callee may write through it
	}
	return w.read()
}

// readsArg reports whether the call p only reads through its argument a:
// a Write method (io.Writer's contract: it must not modify p), or a
// function of another package whose source shows it only reads the
// parameter.
func (t *translator) readsArg(p *ast.CallExpr, a ast.Expr) bool {
	sig, _ := t.info.TypeOf(p.Fun).(*types.Signature)
	if sig == nil {
		return false
	}
	if sel, ok := ast.Unparen(p.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Write" && sig.Params().Len() == 1 && sig.Results().Len() == 2 {
		if sl, ok := sig.Params().At(0).Type().(*types.Slice); ok && types.Identical(sl.Elem(), types.Typ[types.Byte]) {
			return true
		}
	}
	fn, _ := t.externalCallee(p)
	if fn == nil {
		return false
	}
	for i, arg := range p.Args {
		if arg == a {
			// (Not readOnlyArgs: sort.Strings writes its slice's
			// elements, though it stores no reference.)
			u := t.foreign.paramUse(fn, paramIndex(sig, i))
			return u.known && !u.writes && !u.updates && !u.fieldWrites && !u.fieldUpdates && !u.view
		}
	}
	return false
}

// builtinUse classifies w.e used in the call p of the builtin b.
func builtinUse(w *accessWalk, b *types.Builtin, p *ast.CallExpr) access {
	switch b.Name() {
	case "copy", "clear":
		if p.Args[0] == w.e {
			if w.l == locMap || w.pt == locNone {
				return w.write(locMap)
			}
			return w.writePt()
		}
	case "append":
		if p.Args[0] == w.e {
			a := w.writePt()
			a.appendTo = true
			return a
		}
	case "close":
		return w.write(locChan)
	case "delete":
		if p.Args[0] == w.e {
			return w.write(locMap)
		}
	}
	return w.read()
}

func isChan(typ types.Type) bool {
	_, ok := typ.Underlying().(*types.Chan)
	return ok
}

func calleeIdent(call *ast.CallExpr) *ast.Ident {
	id, _ := ast.Unparen(call.Fun).(*ast.Ident)
	return id
}

// within reports whether pos lies in n.
func within(pos token.Pos, n ast.Node) bool { return n.Pos() <= pos && pos < n.End() }

// analyzeRegion checks r's control flow and its variables: what must move
// to the arena, and what breaks Bernstein's conditions.
func (t *analyzer) analyzeRegion(r *region) {
	if r.body == nil || (r.loop == nil && r.dir.kind == dirFor) {
		return
	}
	u := &regionUses{r: r, exits: t.checkControl(r),
		secs: map[secVar]map[int]map[string]bool{}, whole: map[secVar]map[int]token.Pos{}, elems: map[secVar]map[int]map[string]token.Pos{}, reads: map[secVar]map[int]token.Pos{}}
	u.w = t.newRegionWalk(r)
	var walk func(root ast.Node, local func(*types.Var) bool, callee bool)
	walk = func(root ast.Node, local func(*types.Var) bool, callee bool) {
		ast.Inspect(root, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				u.w.call(call, callee) // walks what it may run
			}
			if id, ok := n.(*ast.Ident); ok {
				t.classifyUse(u, id, local, callee)
			}
			t.rootlessWrites(n)
			return true
		})
	}
	u.w.walk = walk
	walk(r.body, func(v *types.Var) bool { return within(v.Pos(), r.stmt) }, false)
	t.bernstein(u)
	t.privateCarry(r)
	if r.dir.kind == dirFor {
		t.invariantUpdates(r)
		t.flowDependences(r)
		t.markWrites(r)
	}
}

// invariantUpdates refuses, in a parallel loop's body, an update (x op= v,
// x++) of shared memory whose place names no variable of the iteration
// (t.n++, a[0] += v, through a shared pointer or slice): every iteration
// updates the same place, each node would update its own copy, and copies
// that end equal merge into one, so that the updates of all but one node
// would be lost (a whole variable updated so is reported as a
// loop-carried dependence by checkOwnWrite).
func (t *translator) invariantUpdates(r *region) {
	ast.Inspect(r.body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false // a closure's own updates are its calls'
		case *ast.CallExpr:
			t.invariantCall(r, x)
			t.invariantMethod(r, x)
			t.handedUses(r, x, false, t.errorf)
			t.foreignMarks(r, x)
			return true
		}
		lhs := t.updatedPlace(n)
		if lhs == nil {
			return true
		}
		if t.iterationPlace(r, lhs) {
			t.sharedUpdate(r, lhs)
			return true
		}
		if t.onceGuarded(r, n) {
			return true // if i == 0 { u[0] += 100 }: one iteration
		}
		t.errorf(lhs.Pos(), "%s is updated in every iteration of the parallel loop at the same place (a loop-carried dependence): each node would update its own copy, and the updates would not add up; use a reduction clause, or have each iteration update its own element", t.text(lhs))
		return true
	})
}

// onceGuarded reports whether the statement n of r's loop body runs in one
// iteration at most (onceBlock).
func (t *translator) onceGuarded(r *region, n ast.Node) bool { return t.onceBlock(r, n) != nil }

// onceBlock returns the outermost block of r's loop body holding n that
// runs in one iteration at most: the body of an if whose condition is, or
// requires (&&), the loop variable equal to something else; else nil.
func (t *translator) onceBlock(r *region, n ast.Node) *ast.BlockStmt {
	if r.loop == nil || r.loop.v == nil || !within(n.Pos(), r.body) {
		return nil
	}
	var found *ast.BlockStmt
	for cur := n; cur != nil && cur != ast.Node(r.body); cur = t.parent[cur] {
		if ifs, ok := t.parent[cur].(*ast.IfStmt); ok && ifs.Body == cur && t.requiresLoopEq(r, ifs.Cond) {
			found = ifs.Body
		}
	}
	return found
}

// usedOnlyIn reports whether every use of v in body is in block.
func (t *translator) usedOnlyIn(v *types.Var, body, block ast.Node) bool {
	for _, u := range t.facts.uses[v] {
		if within(u.Pos(), body) && !within(u.Pos(), block) {
			return false
		}
	}
	return true
}

// requiresLoopEq reports whether the condition c holds only where r's loop
// variable equals an expression that does not mention it.
func (t *translator) requiresLoopEq(r *region, c ast.Expr) bool { return t.loopEqValue(r, c) != nil }

// loopEqValue returns the expression that the condition c requires r's
// loop variable to equal (i == n-1, i == 0 && ok), or nil.
func (t *translator) loopEqValue(r *region, c ast.Expr) ast.Expr {
	b, ok := ast.Unparen(c).(*ast.BinaryExpr)
	if !ok {
		return nil
	}
	switch b.Op {
	case token.LAND:
		if k := t.loopEqValue(r, b.X); k != nil {
			return k
		}
		return t.loopEqValue(r, b.Y)
	case token.EQL:
		isLoop := func(e ast.Expr) bool {
			id, ok := ast.Unparen(e).(*ast.Ident)
			return ok && t.varOf(id) == r.loop.v
		}
		mentions := func(e ast.Expr) bool {
			found := false
			ast.Inspect(e, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && t.varOf(id) == r.loop.v {
					found = true
				}
				return !found
			})
			return found
		}
		switch {
		case isLoop(b.X) && !mentions(b.Y):
			return b.Y
		case isLoop(b.Y) && !mentions(b.X):
			return b.X
		}
	}
	return nil
}

// updatedPlace returns the place (not a whole variable: checkOwnWrite
// reports those) that the statement n updates: x.f++, a[k] op= v, or
// s[0] = s[0] + 1, an assignment whose value reads the place; else nil.
func (t *translator) updatedPlace(n ast.Node) ast.Expr {
	var lhs ast.Expr
	switch x := n.(type) {
	case *ast.IncDecStmt:
		lhs = x.X
	case *ast.AssignStmt:
		if x.Tok == token.DEFINE || len(x.Lhs) != 1 || len(x.Rhs) != 1 || x.Tok == token.ASSIGN && !t.mentions(x.Rhs[0], x.Lhs[0]) {
			return nil
		}
		lhs = x.Lhs[0]
	default:
		return nil
	}
	if _, whole := ast.Unparen(lhs).(*ast.Ident); whole {
		return nil
	}
	return lhs
}

// mentions reports whether the expression e contains the place p (the
// same text).
func (t *translator) mentions(e, p ast.Expr) bool {
	want, found := t.text(p), false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && !found && t.text(x) == want {
			found = true
		}
		return !found
	})
	return found
}

// invariantMethod refuses a call, in a parallel loop's body, of another
// package's method with a pointer receiver (pcg.Uint64(), hits.Add(1) of
// an expvar.Int) on a shared place that names no variable of the
// iteration: every iteration would update the same value, each node its
// own copy.
func (t *translator) invariantMethod(r *region, call *ast.CallExpr) {
	fn, recv := t.externalCallee(call)
	if fn == nil || recv == nil || fn.Pkg().Path() == "sync" || fn.Pkg().Path() == "sync/atomic" {
		return // syncUpdate's
	}
	if t.stdRecvRead(fn, recv) {
		return // it prints, as fmt.Println does, or reads
	}
	if !pointerRecv(fn) {
		return
	}
	u := t.foreign.paramUse(fn, -1)
	if !u.known && t.opaqueRecv(fn, recv) {
		return // refused by externalArgs: it may write anything recv holds, not known to update it
	}
	if u.known && (u.carried || !u.fieldUpdates) {
		// Its source shows it reads, assigns (the merge compares what
		// nodes assign), updates elements, or reads others'.
		t.handedUse(r, t.text(call), u, recv, false, t.errorf)
		return
	}
	// Elements it updates may be shared whatever the receiver (a slice
	// all cells hold): the merge stops the job where two nodes updated
	// the same one.
	r.updates = r.updates || u.known && u.updates
	if u.known && t.iterationPlace(r, recv) && !t.distinctPlace(r, stripAddr(recv)) {
		// accs[i%3].Add(1): the iteration's element, but one several
		// iterations may share; the merge checks its fields' updates.
		r.updates = true
	}
	v := t.rootVar(recv)
	if v == nil || within(v.Pos(), r.stmt) || r.clauseOf[v] != "" || types.IsInterface(t.info.TypeOf(recv)) || t.iterationPlace(r, recv) {
		return
	}
	// A receiver of a value type is the variable itself (its address is
	// taken), whatever the value holds.
	if refersTo(t.info.TypeOf(recv)) && t.freshValue(recv) {
		return
	}
	t.errorf(call.Pos(), "%s in every iteration of the parallel loop updates %s, the same shared value (a loop-carried dependence): each node would update its own copy; make one per iteration, or use a reduction clause", t.text(call), t.text(recv))
}

// invariantCall refuses a call, made in a parallel loop's body, of code of
// the package (a function or method, a function literal through a
// function value, a method through a method value or an interface) that
// updates (x op= v, x++) a place naming no variable of the iteration:
// one reached from its receiver or parameters whose arguments name none
// (c.n++ in c.inc()), or from a variable it captures or a package
// variable (cnt[0] += k in a closure made before the loop). Every
// iteration would update the same place. Where the place varies with the
// arguments but not provably one element per iteration (add(hist, v%4)),
// the region is marked (r.updates, see sharedUpdate). The functions the
// callee calls are followed in turn (bump(hist, v) calling inc(h, v%4)),
// their parameters standing for their callers' arguments, to a depth of
// maxCalleeDepth calls and maxCalleeBodies bodies a region.
func (t *translator) invariantCall(r *region, call *ast.CallExpr) {
	budget := maxCalleeBodies
	t.invariantCallIn(r, nil, call, &budget)
}

// Bounds on the calls invariantCall follows from one call of a loop body.
const (
	maxCalleeDepth  = 8
	maxCalleeBodies = 256
)

// A calleeFrame is one call on the path from a parallel loop's body to the
// function whose updates invariantBody checks.
type calleeFrame struct {
	call   *ast.CallExpr
	scope  ast.Node                // the callee's declaration or literal
	args   map[*types.Var]ast.Expr // its parameters (and receiver): the caller's arguments
	shared *types.Var              // a receiver fixed outside the iteration (calleeArgs)
}

// invariantCallIn checks the callees of call, made by the innermost of
// frames (by the loop body if there are none); budget counts the bodies
// left to check.
func (t *translator) invariantCallIn(r *region, frames []calleeFrame, call *ast.CallExpr, budget *int) {
	local := func(v *types.Var) bool { return within(v.Pos(), r.stmt) }
	if len(frames) > 0 {
		caller := frames[len(frames)-1].scope
		local = func(v *types.Var) bool { return within(v.Pos(), r.stmt) || within(v.Pos(), caller) }
	}
	targets, _ := t.callees(call, local)
	for _, c := range targets {
		var scope ast.Node
		var body *ast.BlockStmt
		var params *ast.FieldList
		switch {
		case c.decl != nil && c.decl.Body != nil:
			scope, body, params = c.decl, c.decl.Body, c.decl.Type.Params
		case c.lit != nil:
			scope, body, params = c.lit, c.lit.Body, c.lit.Type.Params
		default:
			continue
		}
		if *budget <= 0 || len(frames) >= maxCalleeDepth || slices.ContainsFunc(frames, func(f calleeFrame) bool { return f.scope == scope }) {
			continue // a recursion, or far enough
		}
		*budget--
		args, shared := t.calleeArgs(call, c.decl, params, local)
		t.invariantBody(r, append(frames[:len(frames):len(frames)], calleeFrame{call, scope, args, shared}), body, budget)
	}
}

// calleeArgs maps the parameters of a callee of call (params, and decl's
// receiver if a method) to the arguments they stand for. shared is the
// receiver when it cannot be mapped but is fixed outside the iteration (a
// method value made where local, which tells the caller's variables,
// is false), else nil.
func (t *translator) calleeArgs(call *ast.CallExpr, decl *ast.FuncDecl, params *ast.FieldList, local func(*types.Var) bool) (args map[*types.Var]ast.Expr, shared *types.Var) {
	args = map[*types.Var]ast.Expr{}
	if decl != nil && decl.Recv != nil && len(decl.Recv.List) == 1 && len(decl.Recv.List[0].Names) == 1 {
		if v, ok := t.info.Defs[decl.Recv.List[0].Names[0]].(*types.Var); ok {
			switch fun := ast.Unparen(call.Fun).(type) {
			case *ast.SelectorExpr:
				args[v] = fun.X
			case *ast.Ident:
				// A method value: its receiver was fixed where it was
				// made.
				if fv := t.varOf(fun); fv != nil && !local(fv) {
					shared = v
				}
			}
		}
	}
	k := 0
	for _, f := range params.List {
		for _, name := range f.Names {
			if v, ok := t.info.Defs[name].(*types.Var); ok && k < len(call.Args) && !call.Ellipsis.IsValid() {
				args[v] = call.Args[k]
			}
			k++
		}
	}
	return args, shared
}

// invariantBody checks the updates of body, the callee of the innermost
// of frames, and follows its calls; see invariantCall.
func (t *translator) invariantBody(r *region, frames []calleeFrame, body *ast.BlockStmt, budget *int) {
	top, f := frames[0], frames[len(frames)-1]
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			t.invariantCallIn(r, frames, x, budget)
			return true
		}
		lhs := t.updatedPlace(n)
		if lhs == nil {
			t.calleeWrite(r, frames, n)
			return true
		}
		reached, varies := t.calleePlace(r, frames, len(frames)-1, lhs)
		if reached && varies {
			if !t.calleeDistinct(r, lhs, t.topArgs(frames), f.scope) {
				r.updates = true // as sharedUpdate, through the arguments
			}
		}
		if reached && !varies {
			t.errorf(top.call.Pos(), "%s updates %s (at %s) in every iteration of the parallel loop at the same place (a loop-carried dependence): each node would update its own copy, and the updates would not add up; use a reduction clause, or have each iteration update its own element", t.text(top.call), t.text(lhs), t.where(lhs.Pos()))
			return false
		}
		return true
	})
}

// calleeWrite records in r.calleeMarks the places that n, a statement of
// the callee of the innermost of frames, assigns (not updates: those are
// invariantBody's) when they are one place in every iteration, or one an
// index read from memory picks, reached from outside the callee through
// what is not the iteration's own: the iteration writing it last on a node may
// leave the value it had at the region's entry, invisible to the merge
// (set0(buf, data[i]) with set0 writing b[0]). A place whose expression
// calls a function or indexes a map, or a statement outside a statement
// list, is not marked.
func (t *translator) calleeWrite(r *region, frames []calleeFrame, n ast.Node) {
	as, ok := n.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || !t.inList(as) {
		return
	}
	for _, l := range as.Lhs {
		if _, whole := ast.Unparen(l).(*ast.Ident); whole || !t.markPure(l) || !t.indexedOrField(l) {
			continue
		}
		reached, varies := t.calleePlace(r, frames, len(frames)-1, l)
		// One place in every iteration (b[0]), or one an index read from
		// memory picks (out[idx[k]]) that the arguments do not make the
		// iteration's own (scatter(rows[i], idx, k) writes row i).
		if reached && (!varies || indexReadsMemory(l) && !t.calleeDistinct(r, l, t.topArgs(frames), frames[len(frames)-1].scope)) {
			r.calleeMarks = append(r.calleeMarks, markedWrite{stmt: as, place: l})
		}
	}
}

// indexReadsMemory reports whether an index of the place l reads an
// element or a pointer's target (out[idx[k]]).
func indexReadsMemory(l ast.Expr) bool {
	for _, ix := range indicesOf(l) {
		found := false
		ast.Inspect(ix, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.IndexExpr, *ast.StarExpr:
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// indexedOrField reports whether the place l is an element of a slice or
// array, a field, or a pointer's target (not a map's element).
func (t *translator) indexedOrField(l ast.Expr) bool {
	switch x := ast.Unparen(l).(type) {
	case *ast.IndexExpr:
		return t.indexable(x.X)
	case *ast.SelectorExpr:
		return t.info.Selections[x] != nil
	case *ast.StarExpr:
		return true
	}
	return false
}

// topArgs maps the parameters of the innermost of frames to the loop
// body's arguments they stand for, through the parameters of the calls
// between (bump(hist, v) calling inc(h, v%4): inc's h stands for hist);
// a parameter whose argument is not a parameter of its caller in turn
// (v%4) is left out.
func (t *translator) topArgs(frames []calleeFrame) map[*types.Var]ast.Expr {
	args := frames[len(frames)-1].args
	for k := len(frames) - 2; k >= 0; k-- {
		up := map[*types.Var]ast.Expr{}
		for v, e := range args {
			if id, ok := ast.Unparen(e).(*ast.Ident); ok {
				if pv, ok := t.info.Uses[id].(*types.Var); ok && frames[k].args[pv] != nil {
					up[v] = frames[k].args[pv]
				}
			}
		}
		args = up
	}
	return args
}

// calleePlace tells where the place e, in the code of frames[k]'s callee,
// lies: reached, if it is reached from outside the callee (through its
// parameters, a receiver fixed outside the iteration, a captured or a
// package variable); varies, if it names a variable of the iteration or
// a local of a callee, so that it may differ from one iteration to the
// next. A parameter stands for its argument, in the caller's code.
func (t *translator) calleePlace(r *region, frames []calleeFrame, k int, e ast.Expr) (reached, varies bool) {
	f := frames[k]
	ast.Inspect(e, func(m ast.Node) bool {
		id, ok := m.(*ast.Ident)
		if !ok || varies {
			return !varies
		}
		v, ok := t.info.Uses[id].(*types.Var)
		switch {
		case !ok || v.IsField():
		case f.args[v] != nil && k == 0:
			reached = true
			varies = t.iterationPlace(r, f.args[v])
		case f.args[v] != nil:
			rr, vv := t.calleePlace(r, frames, k-1, f.args[v])
			reached, varies = reached || rr, vv
		case v == f.shared:
			reached = true
		case within(v.Pos(), r.stmt) || slices.ContainsFunc(frames[:k+1], func(f calleeFrame) bool { return within(v.Pos(), f.scope) }):
			varies = true // a local of a callee (a closure's captures too), or of the iteration
		default:
			reached = true // captured from outside the loop, or a package variable
		}
		return !varies
	})
	return reached, varies
}

// iterationPlace reports whether the place e (a selector, index or
// dereference) names a variable of the iteration: the loop variable,
// one declared in the loop's statement (the body's locals) or one of the
// region's clauses (its private copies).
func (t *translator) iterationPlace(r *region, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return !found
		}
		if v, ok := t.info.Uses[id].(*types.Var); ok && !v.IsField() && (within(v.Pos(), r.stmt) || r.clauseOf[v] != "" || r.loop != nil && (v == r.loop.v || v == r.loop.valueVar)) {
			found = true
		}
		return !found
	})
	return found
}

// regionUses is what analyzeRegion gathers about one region's uses of
// variables.
type regionUses struct {
	r     *region
	w     *regionWalk
	exits map[ast.Node]bool                       // the region's exits, from checkControl
	secs  map[secVar]map[int]map[string]bool      // sections using each shared variable (or field), with the elements used (elemKey)
	whole map[secVar]map[int]token.Pos            // sections assigning it (or the field) whole
	elems map[secVar]map[int]map[string]token.Pos // sections writing its elements, or the memory it refers to
	reads map[secVar]map[int]token.Pos            // sections reading its elements, or the memory it refers to
}

// secVar is a shared variable, or one field of a shared struct variable,
// as the sections' dependence check (bernstein) tells them apart: field
// is the first field selected from the variable's own storage, "" for a
// use of the whole variable.
type secVar struct {
	v     *types.Var
	field string
}

// secVarOf returns the secVar of the use id of v: the field of v's own
// storage it selects, if any.
func (t *translator) secVarOf(id *ast.Ident, v *types.Var) secVar {
	if _, ok := v.Type().Underlying().(*types.Struct); !ok {
		return secVar{v: v}
	}
	return secVar{v: v, field: t.selectedField(id)}
}

// selectedField returns the name of the field that the use id selects
// directly (id.f, one level), or "".
func (t *translator) selectedField(id *ast.Ident) string {
	if sel, ok := t.parent[id].(*ast.SelectorExpr); ok && sel.X == id {
		if s := t.info.Selections[sel]; s != nil && s.Kind() == types.FieldVal && len(s.Index()) == 1 {
			return sel.Sel.Name
		}
	}
	return ""
}

// name is how messages name sv.
func (sv secVar) name() string {
	if sv.field == "" {
		return sv.v.Name()
	}
	return sv.v.Name() + "." + sv.field
}

// varUse is one use of a variable that analyzeRegion checks.
type varUse struct {
	id     *ast.Ident
	v      *types.Var
	a      access
	local  bool   // each run of the code has v for itself
	callee bool   // the use is in code called from the region
	clause string // v's clause in the region, if any
	sec    int    // the section using v, or -1
}

// classifyUse checks the use id of a variable in the region, or in code
// called from it (callee); local tells the variables each run of that code
// has for itself.
func (t *analyzer) classifyUse(u *regionUses, id *ast.Ident, local func(*types.Var) bool, callee bool) {
	r := u.r
	v, ok := t.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || r.refused[v] {
		return
	}
	if v.Pkg() != nil && v.Pkg() != t.p.types && v.Parent() == v.Pkg().Scope() && t.foreign.standard(v.Pkg().Path()) && t.stdVarWritten(id) {
		via := ""
		if callee {
			via = " (called from the parallel region at " + t.where(r.dir.pos) + ")"
		}
		t.errorf(id.Pos(), "%s.%s belongs to package %s and cannot be written in a parallel region%s: every node has its own copy of it, so only the node that runs the iteration would see the change; change it before or after the region", v.Pkg().Name(), v.Name(), v.Pkg().Path(), via)
		return
	}
	isLocal := local(v)
	if r.loop != nil && (v == r.loop.v || v == r.loop.valueVar) && !callee {
		if a := t.access(id); a.write && v == r.loop.v {
			// (A range loop's own variable too: the analyses of the
			// places the iteration writes and reads take it for the
			// iteration's number.)
			t.errorf(id.Pos(), "the loop variable %s is modified in the parallel loop: the translator takes it for the iteration's number to tell which iterations write and read which places; assign a copy (%s2 := %s) and change that", id.Name, id.Name, id.Name)
		} else {
			t.writeThroughCopy(r, v, id, a)
		}
		return
	}
	a := t.access(id)
	clause := r.clauseOf[v]
	if clause != "" && !isLocal && callee {
		// The region's copy is a new variable in the region's body;
		// a function called from it uses the variable itself.
		t.errorf(id.Pos(), "%s is in the %s clause of the parallel region at %s, but this code, called from the region, uses the variable itself, not the region's copy; pass it as an argument, or do not list it", id.Name, clause, t.where(r.dir.pos))
		return
	}
	if clause != "" && !isLocal {
		t.writeThroughCopy(r, v, id, a)
		return
	}
	sec := -1
	for i, s := range r.sections {
		if within(id.Pos(), s) {
			sec = i
		}
	}
	if callee {
		sec = u.w.callSec // code called from that section
	}
	if !isLocal && r.dir.kind == dirSections && sec >= 0 {
		t.sectionUse(u, id, v, a, sec)
	}
	if a.write {
		t.checkWrite(u, &varUse{id: id, v: v, a: a, local: isLocal, callee: callee, clause: clause, sec: sec})
	}
}

// stdVarWritten reports whether id, a package variable of the standard
// library (os.Args, time.Local), is written where it stands: assigned
// whole, at an element or a field, incremented, or its address taken.
func (t *translator) stdVarWritten(id *ast.Ident) bool {
	var e ast.Expr = id
	if sel, ok := t.parent[id].(*ast.SelectorExpr); ok && sel.Sel == id {
		e = sel
	}
	for {
		switch x := t.parent[e].(type) {
		case *ast.ParenExpr, *ast.StarExpr:
			e = x.(ast.Expr)
		case *ast.IndexExpr:
			if x.X != e {
				return false
			}
			e = x
		case *ast.SelectorExpr:
			if x.X != e {
				return false
			}
			e = x
		case *ast.AssignStmt:
			return slices.Contains(x.Lhs, e)
		case *ast.IncDecStmt:
			return true
		case *ast.UnaryExpr:
			return x.Op == token.AND
		default:
			return false
		}
	}
}

// madeHere reports whether every value of v, a local variable, is made by
// the function that declares it (make, or a composite literal), or nil:
// each run of that code has its own (a map counting what one iteration
// or call sees).
func (t *analyzer) madeHere(v *types.Var) bool {
	srcs := t.facts.sources[v]
	for _, s := range srcs {
		if s.zero {
			continue
		}
		if s.expr == nil || s.unknown != "" || t.funcOf(s.expr) != t.funcOf(v) {
			return false
		}
		switch x := ast.Unparen(s.expr).(type) {
		case *ast.CompositeLit:
		case *ast.CallExpr:
			if b, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); !ok || b.Name() != "make" {
				return false
			}
		default:
			return false
		}
	}
	return len(srcs) > 0
}

// checkWrite checks a write to shared memory in the region by where that
// memory lives: it refuses what cannot be shared, and moves to the arena
// (box, need) what can.
func (t *analyzer) checkWrite(u *regionUses, x *varUse) {
	id, v, a := x.id, x.v, x.a
	tr := trace{} // the region's own write: a plain trace
	via := ""
	if x.callee {
		via = " (called from the parallel region at " + t.where(u.r.dir.pos) + ")"
	}
	switch a.loc {
	case locMap:
		if x.local && t.madeHere(v) {
			return // made by each run of the code that writes it: its own
		}
		t.errorf(id.Pos(), "map %s is written in a parallel region%s: maps live on the Go heap and cannot be shared; use a slice", id.Name, via)
	case locChan:
		if !x.local || x.callee && t.isParam(v) {
			t.errorf(id.Pos(), "channel %s is sent to, received from or closed in a parallel region%s: each node would see only its own share of the operations; collect the values in a slice indexed by iteration", id.Name, via)
		}
	case locUnknown:
		if a.ref == nil {
			t.errorf(id.Pos(), "cannot tell whether the memory written through %s is in the arena%s: write through a slice variable allocated with make", t.text(a.expr), via)
			return
		}
		t.needExpr(tr, a.ref, t.text(a.ref), id.Pos())
		if a.ref == a.expr && t.heldWrite(a.expr) {
			t.needHeld(tr, t.info.TypeOf(a.expr), t.text(a.expr), id.Pos())
		}
	case locRef:
		if a.ref == a.expr && t.heldWrite(a.expr) {
			t.needHeld(tr, t.writtenType(a.expr, true), t.text(a.expr), id.Pos())
		}
		if a.appendTo && !x.local {
			t.errorf(id.Pos(), "append to shared slice %s in a parallel region%s: it may reallocate outside the arena; size it with make before the region", id.Name, via)
			return
		}
		if x.clause == "private" {
			return
		}
		t.needVarAt(tr, v, id, id.Pos())
	case locOwn:
		if !x.local {
			t.checkOwnWrite(u, x, via)
		}
	}
}

// updateOp returns, where id is v assigned by an update of v (v++, v +=
// e, v = v * e), the reduction operator that would make it one (+, *, -,
// &, |, ^), or "?" for another update; "" where the assignment does not
// read v.
func (t *translator) updateOp(id *ast.Ident, v *types.Var) string {
	switch st := t.parent[t.outerParens(id)].(type) {
	case *ast.IncDecStmt:
		return "+"
	case *ast.AssignStmt:
		if !slices.Contains(st.Lhs, ast.Expr(t.outerParens(id).(ast.Expr))) {
			return ""
		}
		if st.Tok != token.ASSIGN && st.Tok != token.DEFINE {
			op := strings.TrimSuffix(st.Tok.String(), "=")
			if op == "-" || op == "+" || op == "*" || op == "&" || op == "|" || op == "^" {
				return op
			}
			return "?"
		}
		for _, r := range st.Rhs {
			if t.namesVar(r, v) {
				if b, ok := ast.Unparen(r).(*ast.BinaryExpr); ok {
					return b.Op.String()
				}
				return "?"
			}
		}
	}
	return ""
}

// checkOwnWrite checks an assignment to a shared variable's own storage
// (via names the region when the code is called from it): it must be a
// variable of this package that can live in the arena, and, assigned whole,
// listed in shared (loops) or used by its section alone (sections).
func (t *analyzer) checkOwnWrite(u *regionUses, x *varUse, via string) {
	id, v, r := x.id, x.v, u.r
	if v.Pkg() != t.p.types {
		t.errorf(id.Pos(), "%s belongs to package %s and cannot be written in a parallel region%s", id.Name, v.Pkg().Name(), via)
		return
	}
	if !pointerFree(v.Type()) && !x.a.indexed {
		t.errorf(id.Pos(), "%s (%s) is assigned in a parallel region%s, but a %s cannot live in the arena; assign elements of a slice, or plain numbers", id.Name, v.Type(), via, kindName(v.Type()))
		return
	}
	if !x.a.indexed && r.shared[v] {
		if op := t.updateOp(id, v); op != "" {
			fix := "reduction(" + op + ":" + id.Name + ")"
			if op == "?" {
				fix = "a reduction clause"
			}
			t.errorf(id.Pos(), "%s is listed in shared, but updated here%s: each node would update its own copy from its value at the region's entry, and the updates would not add up; use %s", id.Name, via, fix)
			return
		}
	}
	if !x.a.indexed && !r.shared[v] {
		switch {
		case r.dir.kind != dirFor:
			sv := t.secVarOf(id, v)
			if u.whole[sv] == nil {
				u.whole[sv] = map[int]token.Pos{}
			}
			if _, ok := u.whole[sv][x.sec]; !ok {
				u.whole[sv][x.sec] = id.Pos()
			}
		case t.beside(id, u.exits, r.body):
			return // follows from the exit reported there
		case t.onceBlock(r, id) != nil && t.usedOnlyIn(v, r.body, t.onceBlock(r, id)):
			// if i == n-1 { last = a[i] }: one iteration writes it, and no
			// other reads it.
		default:
			t.errorf(id.Pos(), "%s is assigned in iterations of the parallel loop%s, each node keeping its own value (a loop-carried dependence): list it in private, firstprivate, lastprivate or reduction, or in shared if every iteration stores the same value", id.Name, via)
			return
		}
	}
	// A variable declared in code a region runs stays there, or is refused.
	d := t.defIdentOf(v)
	tr := trace{}
	if t.funcOf(id) != t.funcOf(v) {
		tr = tr.escape() // captured from another function
	}
	keep := d != nil && t.keepPrivate(tr, d, id.Name, id.Pos())
	if !keep {
		t.box(trace{}, v, id.Pos())
	}
}

// bernstein checks Bernstein's conditions for sections: a variable assigned
// whole in one section may not be used by another; nor may a field of a
// struct variable, while other sections may use its other fields.
func (t *translator) bernstein(u *regionUses) {
	for sv, ws := range u.whole {
		for ws1, pos := range ws {
			// The lowest other section, so that the message is the same
			// on every run.
			other := -1
			for used, secs := range u.secs {
				if used.v != sv.v || sv.field != "" && used.field != "" && used.field != sv.field {
					continue
				}
				for s2 := range secs {
					if s2 != ws1 && (other < 0 || s2 < other) {
						other = s2
					}
				}
			}
			if other >= 0 {
				t.errorf(pos, "%s is assigned in section %d and used in section %d: the sections depend on each other; run them in order, or list it in shared if every section that assigns it stores the same value", sv.name(), ws1, other)
			}
		}
	}
	t.bernsteinElems(u)
}

// writeThroughCopy handles the access a, by id, of a variable v of which
// the region has a copy of its own (the range value, a variable of a
// clause): a copy of a slice or pointer still refers to shared memory, so
// the memory written through it is traced (the ranged elements, or the
// values the variable is given).
func (t *analyzer) writeThroughCopy(r *region, v *types.Var, id *ast.Ident, a access) {
	tr := trace{} // the region's own write: a plain trace
	switch {
	case !a.write:
	case a.loc == locUnknown && a.ref != nil:
		t.needExpr(tr, a.ref, t.text(a.ref), id.Pos())
	case a.loc != locRef || r.clauseOf[v] == "reduction":
	case r.loop != nil && v == r.loop.valueVar && v != nil:
		t.needElemOf(tr, r.loop.rangeX, v.Type(), id.Name, id.Pos(), func(what string) {
			t.errorf(id.Pos(), "%s is written through in the parallel region, but its memory comes from %s, which CAPE cannot place in the arena", id.Name, what)
		})
	default:
		t.need(tr, v, id.Pos())
	}
}

func kindName(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Kind() == types.String {
			return "string"
		}
		return "pointer"
	case *types.Slice:
		return "slice header"
	case *types.Map:
		return "map"
	case *types.Pointer:
		return "pointer"
	case *types.Chan:
		return "channel"
	case *types.Signature:
		return "function value"
	case *types.Interface:
		return "interface value"
	}
	return "value containing pointers"
}

// text returns the source text of n.
func (t *translator) text(n ast.Node) string {
	tf := t.fset.File(n.Pos())
	f := t.fileOf[tf]
	src := t.p.srcs[f]
	if src == nil {
		// Another package's code (the flow analysis reads its
		// functions): its expression as go/types writes it.
		if e, ok := n.(ast.Expr); ok {
			return types.ExprString(e)
		}
		return ""
	}
	return string(src[tf.Offset(n.Pos()):tf.Offset(n.End())])
}

// beside reports whether n lies in one of the statement lists in blocks,
// below stop.
func (t *translator) beside(n ast.Node, blocks map[ast.Node]bool, stop ast.Node) bool {
	for p := t.parent[n]; p != nil && p != stop; p = t.parent[p] {
		if blocks[p] {
			return true
		}
	}
	return false
}

// checkControl refuses control flow that leaves the region. It returns the
// blocks holding such a statement: the assignments beside it hand a result
// out of the region, and are not reported again as loop-carried.
func (t *translator) checkControl(r *region) map[ast.Node]bool {
	c := &controlCheck{t: t, r: r, exits: map[ast.Node]bool{}, labels: labelsIn(r.body)}
	var stack []ast.Node
	ast.Inspect(r.body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch s := n.(type) {
		case *ast.ReturnStmt:
			if !inFuncLit(stack) {
				c.leave(s, "return leaves the parallel region")
			}
		case *ast.DeferStmt:
			if !inFuncLit(stack) {
				t.errorf(s.Pos(), "defer in a parallel region: the deferred call would run after the region, on one node only")
			}
		case *ast.BranchStmt:
			if !inFuncLit(stack) {
				c.branch(s, stack)
			}
		}
		return true
	})
	t.checkGotoLabel(r)
	return c.exits
}

// checkGotoLabel refuses a goto, outside the region, to the label of the
// parallel for r: the translated loop is each node's share of the
// iterations, inside the region's template (a block), which a goto from
// outside cannot enter. A goto inside the region is checkControl's.
func (t *translator) checkGotoLabel(r *region) {
	if r.label == nil || t.info.Defs[r.label.Label] == nil {
		return
	}
	label := t.info.Defs[r.label.Label]
	ast.Inspect(r.fn, func(n ast.Node) bool {
		b, ok := n.(*ast.BranchStmt)
		if ok && b.Tok == token.GOTO && t.info.Uses[b.Label] == label && !within(b.Pos(), r.label) {
			t.errorf(b.Pos(), "goto %s jumps to the label of the parallel for at %s, which CAPE runs as each node's share of the iterations inside code of its own, where a goto cannot jump; repeat the region with a for loop around it instead",
				b.Label.Name, t.where(r.label.Pos()))
		}
		return true
	})
}

// controlCheck is the state of checkControl.
type controlCheck struct {
	t      *translator
	r      *region
	exits  map[ast.Node]bool // the blocks holding a statement that leaves the region
	labels map[string]bool   // the labels declared in the region
}

// leave reports the statement s that leaves the region and records its
// block.
func (c *controlCheck) leave(s ast.Stmt, format string, args ...any) {
	c.t.errorf(s.Pos(), format, args...)
	c.exits[c.t.parent[s]] = true
}

// branch checks the break, continue or goto s, the last node of stack: it
// must not leave the region.
func (c *controlCheck) branch(s *ast.BranchStmt, stack []ast.Node) {
	r := c.r
	switch s.Tok {
	case token.BREAK:
		if s.Label == nil && !nearest(stack, false) || s.Label != nil && !c.labels[s.Label.Name] {
			c.leave(s, "break leaves the parallel region")
		}
	case token.CONTINUE:
		if s.Label != nil && !c.labels[s.Label.Name] && !(r.label != nil && s.Label.Name == r.label.Label.Name && r.dir.kind == dirFor) {
			c.leave(s, "continue %s leaves the parallel region", s.Label.Name)
		}
		if s.Label == nil && r.dir.kind == dirSections && !nearest(stack, true) {
			c.leave(s, "continue leaves the parallel region")
		}
	case token.GOTO:
		if !c.labels[s.Label.Name] {
			c.leave(s, "goto %s leaves the parallel region", s.Label.Name)
		}
	case token.FALLTHROUGH:
	}
}

// labelsIn returns the labels declared in body.
func labelsIn(body ast.Node) map[string]bool {
	labels := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			labels[l.Label.Name] = true
		}
		return true
	})
	return labels
}

// inFuncLit reports whether stack holds a function literal.
func inFuncLit(stack []ast.Node) bool {
	for _, s := range stack {
		if _, ok := s.(*ast.FuncLit); ok {
			return true
		}
	}
	return false
}

// nearest reports whether a statement enclosing the last node of stack
// inside the region is one that a plain break (loops false: a loop, switch
// or select) or continue (loops true: a loop) applies to, or a function
// literal.
func nearest(stack []ast.Node, loops bool) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return true
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if !loops {
				return true
			}
		case *ast.FuncLit:
			return true
		}
	}
	return false
}
