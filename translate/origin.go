package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// A source is one value assigned to a variable somewhere in the package.
type source struct {
	pos     token.Pos
	expr    ast.Expr       // the value, or nil
	zero    bool           // the zero value (a var declaration without value)
	unknown string         // a value the analysis cannot follow, described
	isParam bool           // a parameter: its values come from the call sites
	recv    bool           // the receiver of method param
	param   *types.Func    // the function, nil for a function literal
	index   int            // the parameter's index
	rng     *ast.RangeStmt // the range clause whose value this is (unknown is set too)
	// tuple, when not nil, is the call of several results that gives the
	// variable its result number result (unknown is set too: data, err
	// := load(name)).
	tuple  *ast.CallExpr
	result int
}

// A box is a variable moved to the arena: its declaration becomes
// cape.New[T]() and its uses dereference the pointer.
type box struct {
	v       *types.Var
	why     token.Pos // a write in a region that needs it
	refused bool      // its type cannot live in the arena (reported)
}

func (t *analyzer) box(tr trace, v *types.Var, why token.Pos) {
	if _, ok := t.place.boxes[v]; !ok {
		t.place.boxes[v] = &box{v: v, why: why}
		if !pointerFree(v.Type()) && !t.needContents(tr, v.Type(), v.Name(), why, v.Pos()) {
			t.place.boxes[v].refused = true
		}
	}
}

// need requires the memory that v (a slice or a pointer) refers to to be in
// the arena, because a region writes it at why.
func (t *analyzer) need(tr trace, v *types.Var, why token.Pos) {
	if t.seen[tr.key(v)] {
		return
	}
	t.seen[tr.key(v)] = true
	if v.Pkg() != t.p.types {
		t.originErrorf(tr, why, "%s belongs to package %s: CAPE cannot move the memory it refers to into the arena", v.Name(), v.Pkg().Name())
		return
	}
	for _, s := range t.facts.sources[v] {
		switch {
		case s.zero:
		case s.tuple != nil:
			t.needTupleResult(tr, v, s, why)
		case s.unknown != "":
			what, hint, _ := strings.Cut(s.unknown, "; ")
			if hint != "" {
				hint = "; " + hint
			}
			t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but its value here comes from %s, which CAPE cannot place in the arena%s", v.Name(), t.where(why), what, hint)
		case s.recv:
			t.needRecv(tr, v, s, why)
		case s.isParam:
			t.needParam(tr, v, s, why)
		case t.funcOf(s.expr) != t.funcOf(v):
			// Assigned by a function literal, whose locals and
			// results need not be the ones of v's function's call.
			t.needExpr(tr.escape(), s.expr, v.Name(), why)
		default:
			t.needExpr(tr, s.expr, v.Name(), why)
		}
	}
}

// needTupleResult requires the memory of result s.result of the call
// s.tuple, the value of v, to be in the arena: what the function of the
// package returns there (data, err := load(name)).
func (t *analyzer) needTupleResult(tr trace, v *types.Var, s source, why token.Pos) {
	call := s.tuple
	fn := t.staticCallee(call)
	var d *ast.FuncDecl
	if fn != nil {
		d = t.facts.decls[fn]
	}
	if d == nil || d.Body == nil {
		if ext, _ := t.externalCallee(call); ext != nil && t.freshCall(call) && t.keepPrivate(tr, call, v.Name(), why) {
			return // f, err := os.Open(name) in an iteration: the iteration's own
		}
		what := "a call CAPE cannot follow"
		if ext, _ := t.externalCallee(call); ext != nil {
			what = fmt.Sprintf("a call of %s.%s (another package's function); make it in this package (make) and copy the call's result into it", ext.Pkg().Name(), funcName(ext))
		}
		what, hint, _ := strings.Cut(what, "; ")
		if hint != "" {
			hint = "; " + hint
		}
		t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but its value here comes from %s, which CAPE cannot place in the arena%s", v.Name(), t.where(why), what, hint)
		return
	}
	if t.seen[tr.key(call)] {
		return
	}
	t.seen[tr.key(call)] = true
	if !t.privateCall(tr, call) {
		tr = tr.escape()
	}
	sig := fn.Type().(*types.Signature)
	ast.Inspect(d.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == sig.Results().Len() {
				t.needExpr(tr, n.Results[s.result], v.Name(), why)
			} else {
				t.originErrorf(tr, n.Pos(), "%s is written through in the parallel region at %s, but its value comes from %s, which returns here what CAPE cannot follow (name the results' values in the return statement)", v.Name(), t.where(why), fn.Name())
			}
		}
		return true
	})
}

func (t *analyzer) needParam(tr trace, v *types.Var, s source, why token.Pos) {
	switch {
	case s.param == nil:
		t.needLitParam(tr, v, s, why)
		return
	case t.facts.valueUse[s.param]:
		t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but it is a parameter of %s, which is used as a function value: CAPE cannot see every caller", v.Name(), t.where(why), s.param.Name())
		return
	}
	sig := s.param.Type().(*types.Signature)
	if sig.Variadic() && s.index == sig.Params().Len()-1 {
		t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but it is a variadic parameter", v.Name(), t.where(why))
		return
	}
	for _, call := range t.facts.calls[s.param] {
		if len(call.Args) != sig.Params().Len() || call.Ellipsis.IsValid() {
			t.originErrorf(tr, call.Pos(), "%s is written through in the parallel region at %s; CAPE cannot follow this call's arguments", v.Name(), t.where(why))
			continue
		}
		t.needExpr(tr, call.Args[s.index], v.Name(), why)
	}
}

// needExpr requires the memory that the value of e refers to to be in the
// arena.
func (t *analyzer) needExpr(tr trace, e ast.Expr, name string, why token.Pos) {
	if t.seen[tr.key(e)] {
		return
	}
	t.seen[tr.key(e)] = true
	e = ast.Unparen(e)
	fail := func(what string) {
		hint := ""
		if w, h, ok := strings.Cut(what, "; "); ok {
			what, hint = w, "; "+h
		}
		if tr.held {
			t.originErrorf(tr, e.Pos(), "%s is referred to by memory that the parallel region at %s writes, which lives in the arena and may refer only to arena memory, but its memory comes from %s here, which CAPE cannot place in the arena%s", name, t.where(why), what, hint)
			return
		}
		t.originErrorf(tr, e.Pos(), "%s is written through in the parallel region at %s, but its memory comes from %s here, which CAPE cannot place in the arena%s", name, t.where(why), what, hint)
	}
	switch x := e.(type) {
	case *ast.Ident:
		if _, ok := t.info.Uses[x].(*types.Nil); ok {
			return
		}
		if v := t.varOf(x); v != nil {
			t.needVarAt(tr, v, x, why)
			return
		}
		fail(x.Name)
	case *ast.CallExpr:
		t.needCall(tr, x, name, why, fail)
	case *ast.SliceExpr:
		if _, ok := t.info.TypeOf(x.X).Underlying().(*types.Array); ok {
			t.needOwn(tr, x.X, name, why)
			return
		}
		t.needExpr(tr, x.X, name, why)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			if lit, ok := ast.Unparen(x.X).(*ast.CompositeLit); ok {
				t.arenaLit(tr, x, lit, name, why, fail)
				return
			}
			t.needOwn(tr, x.X, name, why)
			return
		}
		if x.Op == token.ARROW {
			fail("a value received from a channel; make the memory in this package (make) before the region and send indices, or copy what is received into it")
			return
		}
		fail("an expression")
	case *ast.CompositeLit:
		switch {
		case t.keepPrivate(tr, x, name, why):
		case isStruct(t.info.TypeOf(x)):
			// A struct value (m := VMat{Data: make(...)}): what it
			// refers to is what its fields do.
			t.needContents(tr, t.info.TypeOf(x), name, why, x.Pos())
		default:
			fail("a composite literal; allocate it with make instead")
		}
	case *ast.SelectorExpr:
		sel := t.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal {
			fail(t.text(x))
			return
		}
		t.needField(tr, sel.Obj().(*types.Var), name, why)
	case *ast.IndexExpr:
		t.needElem(tr, x, name, why, fail)
	case *ast.TypeAssertExpr:
		// What the asserted value refers to is what the interface's
		// values do.
		t.needExpr(tr, x.X, name, why)
	default:
		fail("an expression")
	}
}

// needCall requires the memory that the value of the call x refers to to
// be in the arena: a conversion's operand, an allocation, a package
// function's results, or the iteration's own memory made by another
// package's constructor.
func (t *analyzer) needCall(tr trace, x *ast.CallExpr, name string, why token.Pos, fail func(string)) {
	if tv := t.info.Types[x.Fun]; tv.IsType() && len(x.Args) == 1 {
		if stringCopy(t.info, x) {
			t.arenaConv(tr, x, name, why, fail)
			return
		}
		t.needExpr(tr, x.Args[0], name, why)
		return
	}
	if b, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); ok {
		switch b.Name() {
		case "make", "new":
			t.arenaAlloc(tr, x, b.Name(), name, why)
		case "append":
			// append writes into its first argument's memory where
			// that has room, else into memory it makes here.
			if !t.keepPrivate(tr, x, name, why) {
				fail("append, which may reallocate it on the Go heap; size it with make instead")
				return
			}
			if len(x.Args) > 0 {
				t.needExpr(tr, x.Args[0], name, why)
			}
		default:
			fail(b.Name())
		}
		return
	}
	if fn := t.capeFunc(x); fn == "Make" || fn == "New" {
		return
	}
	if fn := t.staticCallee(x); fn != nil {
		t.needResult(tr, fn, x, name, why)
		return
	}
	if lits := t.literalCallees(x); lits != nil {
		// mk := func(n int) []float64 { return make(...) }; u := mk(6):
		// what the literals return.
		if !t.privateCall(tr, x) {
			tr = tr.escape()
		}
		for _, lit := range lits {
			t.litResults(tr, lit, name, why)
		}
		return
	}
	if fld := t.foreignResultField(x); fld != nil {
		// A getter of another package returning its argument's slice
		// field (g.Vs() returning g.Vals, a row of m.Data): that
		// field's memory.
		t.needField(tr, fld, name, why)
		return
	}
	if t.imageCall(tr, x, name, why) {
		return
	}
	if fn, _ := t.externalCallee(x); fn != nil && len(x.Args) > 0 && fn.Pkg().Path() == "slices" && prefixOfFirst[fn.Name()] {
		// slices.Compact(s), slices.Delete(s, i, j): a prefix of s's
		// own array.
		t.needExpr(tr, x.Args[0], name, why)
		return
	}
	if fn, _ := t.externalCallee(x); fn != nil {
		foreignMade := fmt.Sprintf("a call of %s.%s (another package's function); make it in this package (make, new or &T{...}) and hand it over", fn.Pkg().Name(), funcName(fn))
		// Another package's constructor of what it is handed
		// nothing to refer to (rand.New(rand.NewPCG(seed, 1))):
		// its result is memory it made, the iteration's own where
		// the call runs in a region.
		if !t.freshCall(x) || !t.keepPrivate(tr, x, name, why) {
			fail(foreignMade)
		}
		return
	}
	if t.hashSum(x) && t.keepPrivate(tr, x, name, why) {
		return // s := h.Sum(nil) of a hash the iteration made: new memory
	}
	fail("a call CAPE cannot follow")
}

// hashSum reports whether call is h.Sum(b) on a standard-library hash
// (stdHash) declared in a region, b holding nothing or being fresh: Sum
// appends the digest to b, in new memory when b has no room.
func (t *translator) hashSum(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Sum" || len(call.Args) != 1 || !t.stdHash(sel.X) {
		return false
	}
	v := t.varOf(sel.X)
	return v != nil && t.inRegion(v.Pos()) && t.freshValue(call.Args[0])
}

// prefixOfFirst are package slices' functions whose result is a prefix of
// their first argument's array, never memory they make.
var prefixOfFirst = map[string]bool{"Compact": true, "CompactFunc": true, "Delete": true, "DeleteFunc": true, "Clip": true}

// foreignResultField returns, for call of another package's function or
// method whose source returns a slice field of its receiver or of an
// argument (returnedField), that field as this package sees it; nil
// otherwise.
func (t *translator) foreignResultField(call *ast.CallExpr) *types.Var {
	fn, recv := t.externalCallee(call)
	return t.resultField(call, fn, recv)
}

// getterCall returns the function call calls, another package's or the
// package's own, and the operand of its receiver if it is a method.
func (t *translator) getterCall(call *ast.CallExpr) (*types.Func, ast.Expr) {
	if fn, recv := t.externalCallee(call); fn != nil {
		return fn, recv
	}
	fn := t.staticCallee(call)
	if fn == nil {
		return nil, nil
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && t.info.Selections[sel] != nil {
		return fn, sel.X
	}
	return fn, nil
}

// resultField is foreignResultField for call of fn with the receiver
// operand recv, of any package.
func (t *translator) resultField(call *ast.CallExpr, fn *types.Func, recv ast.Expr) *types.Var {
	if fn == nil || call.Ellipsis.IsValid() {
		return nil
	}
	index, path, ok := t.foreign.returnedField(fn)
	if !ok {
		return nil
	}
	arg := recv
	if index >= 0 {
		if sig, _ := fn.Type().(*types.Signature); sig == nil || sig.Variadic() || index >= len(call.Args) {
			return nil
		}
		arg = call.Args[index]
	} else if fun, _ := ast.Unparen(call.Fun).(*ast.SelectorExpr); fun == nil || t.info.Selections[fun] == nil || len(t.info.Selections[fun].Index()) != 1 {
		return nil // a promoted method's receiver is an embedded field
	}
	typ := t.info.TypeOf(arg)
	var fld *types.Var
	for _, i := range path {
		if p, ok := typ.Underlying().(*types.Pointer); ok {
			typ = p.Elem()
		}
		st, ok := typ.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil
		}
		fld = st.Field(i)
		typ = fld.Type()
	}
	return fld
}

// needElem requires the memory of the element x (a slice or pointer held by
// a slice or array) to be in the arena: the container itself, and every
// value of the element's type stored in an element.
func (t *analyzer) needElem(tr trace, x *ast.IndexExpr, name string, why token.Pos, fail func(string)) {
	t.needElemOf(tr, x.X, t.info.TypeOf(x), name, why, fail)
}

// needElemOf requires the memory that the elements (of type elem) of the
// slice or array container refer to to be in the arena.
func (t *analyzer) needElemOf(tr trace, container ast.Expr, elem types.Type, name string, why token.Pos, fail func(string)) {
	// The container is only read: its elements hold the same values on
	// every node, made by the same sequential code. It goes to the arena if
	// it can (a write of an element is a write through the container,
	// traced strictly where it happens).
	switch u := t.info.TypeOf(container).Underlying().(type) {
	case *types.Slice:
		t.needContainer(tr, container, name, why)
	case *types.Array:
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			fail("an element of " + t.text(container))
			return
		}
		t.needContainer(tr, container, name, why)
	default:
		fail("an element of " + t.text(container))
		return
	}
	t.needElems(tr, elem, name, why)
}

// needContainer traces softly the slice or array container whose elements
// a region reads: it goes to the arena if it can. What keeps it out of the
// arena is not an error, so the soft trace's findings are discarded: the
// container stays on the Go heap, where every node's sequential code builds
// the same element values, and a write of an element is a write through
// the container, traced strictly where it happens.
func (t *analyzer) needContainer(tr trace, container ast.Expr, name string, why token.Pos) {
	_ = softly(tr, func(tr trace) { t.needExpr(tr, container, name, why) })
}

// needOwn requires the variable whose storage e denotes to move to the
// arena.
func (t *analyzer) needOwn(tr trace, e ast.Expr, name string, why token.Pos) {
	if tr.soft() {
		return // variables move to the arena only when written
	}
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			if v := t.varOf(x); v != nil {
				if id := t.defIdentOf(v); id == nil || !t.keepPrivate(tr, id, name, why) {
					t.box(tr, v, why)
				}
				return
			}
		case *ast.SelectorExpr:
			if sel := t.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
				if _, ok := t.info.TypeOf(x.X).Underlying().(*types.Pointer); ok {
					t.needExpr(tr, x.X, name, why)
					return
				}
				e = x.X
				continue
			}
		case *ast.IndexExpr:
			switch t.info.TypeOf(x.X).Underlying().(type) {
			case *types.Array:
				e = x.X
				continue
			case *types.Slice, *types.Pointer:
				t.needExpr(tr, x.X, name, why)
				return
			}
		}
		t.originErrorf(tr, e.Pos(), "%s is written through in the parallel region at %s, but its memory is %s, which CAPE cannot place in the arena", name, t.where(why), t.text(e))
		return
	}
}

// needResult requires the memory returned by fn to be in the arena. The
// result is memory made by a call that has returned: it may have been made
// anywhere (escaped), unless the call itself is known to run inside the
// region's iteration (privateCall).
func (t *analyzer) needResult(tr trace, fn *types.Func, call *ast.CallExpr, name string, why token.Pos) {
	if !t.privateCall(tr, call) {
		t.needResult(tr.escape(), fn, call, name, why)
		return
	}
	if t.seen[tr.key(fn)] {
		return
	}
	t.seen[tr.key(fn)] = true
	d := t.facts.decls[fn]
	sig := fn.Type().(*types.Signature)
	if d == nil || d.Body == nil || sig.Results().Len() != 1 || sig.Results().At(0).Name() != "" {
		t.originErrorf(tr, call.Pos(), "%s is written through in the parallel region at %s, but its memory comes from a call of %s, which CAPE cannot follow (it needs one unnamed result)", name, t.where(why), fn.Name())
		return
	}
	t.needReturns(tr, d.Body, name, why)
}

// needReturns requires the memory that the return statements of body (not
// of its function literals), of one result, return to be in the arena.
func (t *analyzer) needReturns(tr trace, body *ast.BlockStmt, name string, why token.Pos) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 1 {
				t.needExpr(tr, n.Results[0], name, why)
			}
		}
		return true
	})
}

// literalCallees returns the function literals of the package that call,
// of a function value or of a literal where it stands, may call, when CAPE knows every one and each has
// one unnamed result; nil otherwise.
func (t *analyzer) literalCallees(call *ast.CallExpr) []*ast.FuncLit {
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		if sig, _ := t.info.TypeOf(lit).(*types.Signature); sig != nil && sig.Results().Len() == 1 && sig.Results().At(0).Name() == "" {
			return []*ast.FuncLit{lit} // var buf = func() []float64 { ... }()
		}
		return nil
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	if _, isVar := t.info.Uses[id].(*types.Var); !isVar {
		return nil
	}
	targets, bad := t.funcValues(id, func(*types.Var) bool { return false })
	if bad != nil || len(targets) == 0 {
		return nil
	}
	var lits []*ast.FuncLit
	for _, c := range targets {
		if c.lit == nil {
			return nil
		}
		sig, _ := t.info.TypeOf(c.lit).(*types.Signature)
		if sig == nil || sig.Results().Len() != 1 || sig.Results().At(0).Name() != "" {
			return nil
		}
		lits = append(lits, c.lit)
	}
	return lits
}

// litResults requires the memory that the literal lit returns to be in
// the arena (needResult's work for a literal).
func (t *analyzer) litResults(tr trace, lit *ast.FuncLit, name string, why token.Pos) {
	if t.seen[tr.key(lit)] {
		return
	}
	t.seen[tr.key(lit)] = true
	t.needReturns(tr, lit.Body, name, why)
}

// privateCall reports whether call, whose result the trace follows, runs
// inside the iteration that writes: it is in a region's statement, or the
// trace came down the active calls to a function that cannot start a
// region (private.go). Already escaped traces stay so.
func (t *analyzer) privateCall(tr trace, call *ast.CallExpr) bool {
	if tr.escaped || tr.stored {
		return true // nothing to add
	}
	if t.inRegion(call.Pos()) {
		return true
	}
	fn := t.enclosing(call, isFunc)
	return fn != nil && t.mayRunInRegion(t.code, call) && !t.mayStartRegion(t.code, fn)
}

// arenaAlloc records that a make or new call moves to the arena.
func (t *analyzer) arenaAlloc(tr trace, call *ast.CallExpr, builtin, name string, why token.Pos) {
	if t.keepPrivate(tr, call, name, why) {
		return // a private buffer, or refused
	}
	typ := t.info.TypeOf(call.Args[0])
	var elem types.Type
	switch u := typ.Underlying().(type) {
	case *types.Slice:
		if builtin == "make" {
			elem = u.Elem()
		}
	default:
		if builtin == "new" {
			elem = typ
		}
	}
	if elem == nil {
		t.originErrorf(tr, call.Pos(), "%s is written through in the parallel region at %s, but it is made here as a %s, which cannot live in the arena", name, t.where(why), typ)
		return
	}
	if t.needContents(tr, elem, name, why, call.Pos()) {
		t.place.makes[call] = name
	}
}

// stringCopy reports whether x, a conversion, copies a string into new
// memory: a string converted to a slice (of bytes or runes).
func stringCopy(info *types.Info, x *ast.CallExpr) bool {
	if _, ok := info.TypeOf(x).Underlying().(*types.Slice); !ok {
		return false
	}
	b, ok := info.TypeOf(x.Args[0]).Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// arenaConv records that the conversion x of a string to a slice of bytes
// or runes, new memory as make's, moves to the arena (cape.BytesOf,
// cape.RunesOf).
func (t *analyzer) arenaConv(tr trace, x *ast.CallExpr, name string, why token.Pos, fail func(string)) {
	if t.keepPrivate(tr, x, name, why) {
		return // a private buffer, or refused
	}
	elem := t.info.TypeOf(x).Underlying().(*types.Slice).Elem()
	if !types.Identical(elem, types.Typ[types.Byte]) && !types.Identical(elem, types.Typ[types.Rune]) {
		fail("a conversion of a string to a slice of " + elem.String() + "; convert to []byte or []rune")
		return
	}
	t.place.makes[x] = name
}

// arenaLit records that &T{...} moves to the arena.
func (t *analyzer) arenaLit(tr trace, x *ast.UnaryExpr, lit *ast.CompositeLit, name string, why token.Pos, fail func(string)) {
	if lit.Type == nil {
		fail("a composite literal whose type is not written; allocate it with new instead")
		return
	}
	if t.keepPrivate(tr, x, name, why) {
		return
	}
	if t.needContents(tr, t.info.TypeOf(lit), name, why, x.Pos()) {
		t.place.lits[x] = name
	}
}

// inRegion reports whether pos lies in some parallel region.
func (t *translator) inRegion(pos token.Pos) bool {
	for _, r := range t.regions {
		if within(pos, r.stmt) {
			return true
		}
	}
	return false
}

// capeFunc returns the name of the cape runtime function that call calls,
// or "".
func (t *translator) capeFunc(call *ast.CallExpr) string {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, ok := t.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != capePath {
		return ""
	}
	return fn.Name()
}

// freshPkgs are the standard library's packages whose constructors
// (New...) and methods make, from arguments that refer to nothing, only
// memory of their own: no package state.
var freshPkgs = map[string]bool{
	"math/rand": true, "math/rand/v2": true, "math/big": true,
	"strings": true, "bytes": true, "bufio": true,
	"container/list": true, "container/ring": true,
	"hash/fnv": true, "hash/crc32": true, "hash/crc64": true, "hash/adler32": true,
	"crypto/md5": true, "crypto/sha1": true, "crypto/sha256": true, "crypto/sha512": true,
	"regexp": true, "encoding/csv": true,
}

// freshFuncs are other functions of the standard library that make, from
// fresh arguments, only memory of their own: a file opened for reading
// (each node's own descriptor), what a file or reader holds, a compiled
// regexp.
var freshFuncs = map[string]bool{
	"os.Open": true, "os.ReadFile": true, "io.ReadAll": true,
	"regexp.Compile": true, "regexp.MustCompile": true, "regexp.CompilePOSIX": true, "regexp.MustCompilePOSIX": true,
}

// derivedPkgs are packages whose functions return memory they made or
// memory their arguments refer to, and keep no state of their own
// (slices.Clone, strconv.AppendInt): called with fresh arguments, their
// result is fresh.
var derivedPkgs = map[string]bool{"slices": true, "strconv": true, "unicode/utf8": true, "unicode/utf16": true}

// derivedOnly reports whether fn, called on recv (nil for a function), is
// a function of derivedPkgs or one of fmt's Append functions.
func derivedOnly(fn *types.Func, recv ast.Expr) bool {
	if recv != nil {
		return false
	}
	switch path := fn.Pkg().Path(); {
	case derivedPkgs[path]:
		return true
	case path == "fmt":
		return fn.Name() == "Append" || fn.Name() == "Appendf" || fn.Name() == "Appendln"
	}
	return false
}

// copies reports whether fn returns a new slice holding copies of its
// arguments' elements (slices.Clone, slices.Concat, bytes.Clone).
func copies(fn *types.Func) bool {
	switch fn.Pkg().Path() + "." + fn.Name() {
	case "slices.Clone", "slices.Concat", "bytes.Clone":
		return true
	}
	return false
}

// freshCall reports whether call, of a constructor (a function named
// New...) or method of a package of freshPkgs, or a function derivedOnly
// accepts, is handed nothing through
// which its result could refer to memory it did not make: every argument
// (and the receiver) holds no references, or is fresh itself (freshValue).
func (t *translator) freshCall(call *ast.CallExpr) bool {
	return (&freshness{t: t, seen: map[*types.Var]bool{}}).call(call)
}

// freshValue reports whether e refers to no memory but what the iteration
// made for itself: e holds no references, or is new(T) or &T{...} of
// fresh elements made in a region, or a call that freshCall accepts, or a
// variable declared in a region, not a parameter, whose every value is
// one of those.
func (t *translator) freshValue(e ast.Expr) bool {
	return (&freshness{t: t, seen: map[*types.Var]bool{}}).value(e)
}

// freshness is one question of freshCall or freshValue: seen holds the
// variables being looked at, assumed fresh while their values are (a
// variable assigned from itself, e = e.Next(), is as fresh as its other
// values).
type freshness struct {
	t    *translator
	seen map[*types.Var]bool
}

func (f *freshness) call(call *ast.CallExpr) bool {
	t := f.t
	if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok && (b.Name() == "new" || b.Name() == "make") {
		return t.inRegion(call.Pos())
	} else if ok && b.Name() == "append" {
		// append(buf, x, ...): buf's array, or a new one, holding its
		// elements and the fresh values appended.
		for _, a := range call.Args {
			if !f.value(a) {
				return false
			}
		}
		return true
	}
	fn, recv := t.externalCallee(call)
	if fn == nil || call.Ellipsis.IsValid() {
		return false
	}
	if copies(fn) {
		if sl, ok := t.info.TypeOf(call).Underlying().(*types.Slice); ok && !refersTo(sl.Elem()) {
			return true // new memory holding copies of numbers: nothing of the arguments'
		}
	}
	listed := recv == nil && freshFuncs[fn.Pkg().Path()+"."+fn.Name()]
	if (!freshPkgs[fn.Pkg().Path()] || recv == nil && !strings.HasPrefix(fn.Name(), "New")) && !derivedOnly(fn, recv) && !listed {
		// Another package's function may return that package's state
		// (log.Default(), expvar.NewInt, a constructor returning a
		// package variable), which every iteration of a node would
		// share and no other node would see: only the constructors and
		// methods of packages known to make fresh memory qualify.
		return false
	}
	if recv != nil && !f.value(recv) {
		return false
	}
	for _, a := range call.Args {
		if !f.value(a) {
			return false
		}
	}
	return true
}

// variable reports whether v, declared in a region and not a parameter,
// has only fresh values.
func (f *freshness) variable(v *types.Var) bool {
	t := f.t
	if f.scopeOf(v) == nil || t.isParam(v) || len(f.seen) > 64 {
		return false
	}
	if f.seen[v] {
		return true
	}
	f.seen[v] = true
	srcs := t.facts.sources[v]
	for _, s := range srcs {
		if s.zero {
			continue // var b []byte: nil, no memory
		}
		if s.tuple != nil && f.call(s.tuple) {
			continue // f, err := os.Open(name)
		}
		if s.expr == nil || s.unknown != "" || !f.value(s.expr) {
			return false
		}
	}
	return len(srcs) > 0 && !f.reachedFromElsewhere(v)
}

// printedInto reports whether amp, &v, is the writer that one of fmt's
// Fprint functions prints into (fmt.Fprintf(&buf, ...)): it only calls
// v's Write, as buf.Write(p) would.
func (t *translator) printedInto(amp *ast.UnaryExpr) bool {
	call, ok := t.parent[amp].(*ast.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0] != ast.Expr(amp) {
		return false
	}
	return t.pkgFunc(call, "fmt", "Fprint") || t.pkgFunc(call, "fmt", "Fprintf") || t.pkgFunc(call, "fmt", "Fprintln")
}

// reachedFromElsewhere reports whether, in the region that declares v,
// v's address is taken (a store through it could replace v), or
// references that are not fresh are stored into what v refers to (h.p =
// &total, v[0] = q, *v = w) or handed to a method of v (b.SetBits(acc)):
// v's memory would then lead to memory the iteration did not make.
func (f *freshness) reachedFromElsewhere(v *types.Var) bool {
	t := f.t
	scope := f.scopeOf(v)
	if scope == nil {
		return true
	}
	found := false
	ast.Inspect(scope, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.UnaryExpr:
			found = found || x.Op == token.AND && t.varOf(x.X) == v && !t.printedInto(x)
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if t.varOf(l) == v || t.rootVar(l) != v || i >= len(x.Rhs) && len(x.Rhs) != 1 {
					continue
				}
				rhs := x.Rhs[min(i, len(x.Rhs)-1)]
				if typ := t.info.TypeOf(l); typ != nil && refersTo(typ) && !f.value(rhs) {
					found = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok && t.rootVar(sel.X) == v && !ioMethods[sel.Sel.Name] {
				for _, a := range x.Args {
					if typ := t.info.TypeOf(a); typ != nil && refersTo(typ) && !f.value(a) && !isFuncName(t.info, a) {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// scopeOf returns where the local variable v lives and may be reached:
// the region that declares it, or else the body of the function
// declaration that does, where that holds no region (a function a region
// calls makes its locals anew in every call, as an iteration does); nil
// for other variables.
func (f *freshness) scopeOf(v *types.Var) ast.Node {
	t := f.t
	var scope ast.Node
	for _, r := range t.regions {
		if within(v.Pos(), r.stmt) {
			scope = r.stmt
		}
	}
	if scope != nil {
		return scope
	}
	d, ok := t.funcOf(v).(*ast.FuncDecl)
	if !ok || d.Body == nil || !within(v.Pos(), d.Body) {
		return nil
	}
	for _, r := range t.regions {
		if within(r.stmt.Pos(), d.Body) {
			return nil // a local around a region: its iterations share it
		}
	}
	return d.Body
}

// ioMethods are the methods of io's interfaces, whose implementations
// must not retain the slice they are handed (io.Reader's contract).
var ioMethods = map[string]bool{"Read": true, "ReadAt": true, "Write": true, "WriteAt": true}

// freshVar is freshValue for the variable v.
func (t *translator) freshVar(v *types.Var) bool {
	return (&freshness{t: t, seen: map[*types.Var]bool{}}).variable(v)
}

func (f *freshness) value(e ast.Expr) bool {
	t := f.t
	if typ := t.info.TypeOf(e); typ != nil && !refersTo(typ) {
		return true
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return f.value(x.Args[0]) // []byte(nil); a conversion refers to what its operand does
		}
		return f.call(x)
	case *ast.Ident:
		if _, ok := t.info.Uses[x].(*types.Nil); ok {
			return true
		}
		v, ok := t.info.Uses[x].(*types.Var)
		return ok && f.variable(v)
	case *ast.SelectorExpr:
		// io.Discard: a writer that keeps nothing.
		v, ok := t.info.Uses[x.Sel].(*types.Var)
		return ok && v.Pkg() != nil && v.Pkg().Path() == "io" && v.Name() == "Discard"
	case *ast.CompositeLit:
		// []byte{}, T{...} made in a region, of fresh elements.
		return t.inRegion(x.Pos()) && f.elements(x)
	case *ast.UnaryExpr:
		// &T{...} made in a region, of fresh elements.
		lit, ok := ast.Unparen(x.X).(*ast.CompositeLit)
		if x.Op != token.AND || !ok || !t.inRegion(x.Pos()) {
			return false
		}
		return f.elements(lit)
	}
	return false
}

// elements reports whether the elements of lit are fresh.
func (f *freshness) elements(lit *ast.CompositeLit) bool {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			el = kv.Value
		}
		if !f.value(el) {
			return false
		}
	}
	return true
}

// refersTo reports whether a value of type typ holds references: slices,
// pointers, maps, channels, functions or interfaces (a string's bytes
// cannot be written).
func refersTo(typ types.Type) bool {
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Array:
		return refersTo(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if refersTo(u.Field(i).Type()) {
				return true
			}
		}
		return false
	}
	return true
}

// isFuncName reports whether e names a function (bufio.ScanWords): a
// function value that holds no memory.
func isFuncName(info *types.Info, e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := info.Uses[x].(*types.Func)
		return ok
	case *ast.SelectorExpr:
		_, ok := info.Uses[x.Sel].(*types.Func)
		return ok && info.Selections[x] == nil
	}
	return false
}
