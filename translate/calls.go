package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// This file decides which code a call in a parallel region may run, so that
// the region's analysis sees every write: the package's functions and
// methods called statically, function literals and declared functions
// reached through function values (variables, parameters, results, method
// values), and the methods of every type of the package that may be the
// dynamic type of an interface. A call whose code cannot be bounded is an
// error; functions of other packages are not walked with the region (what
// they may write is what they are handed: see access and externalArgs), but
// their source, outside the standard library, is read for the package
// variables they change and for how they use a pointer they are handed
// (foreign.go).

// A callTarget is a body that a call may run.
type callTarget struct {
	decl *ast.FuncDecl // a function or method of the package
	lit  *ast.FuncLit  // a function literal of the package
	// outer is true when lit's value may have been made outside the code
	// the region runs (it was reached through a package-level variable, a
	// function result, or a variable the region's code does not declare):
	// then the variables it captures are shared, whoever declared them.
	outer bool
}

// An unbounded call: its code cannot be known. pos and what say where the
// function value comes from.
type unbounded struct {
	pos  token.Pos
	what string
	// state, when not nil, is why: the value may be fn, a function of
	// another package that changes a package variable there.
	state *stateWrite
	fn    *types.Func
}

// funcFlow resolves the function values that an expression may hold.
type funcFlow struct {
	t      *translator
	runsIn func(*types.Var) bool // v is declared in code the region runs
	seen   map[any]bool
	out    []callTarget
	bad    *unbounded
}

// callees returns the bodies that call may run, beyond those of other
// packages, or the reason they cannot be known. runsIn reports whether a
// variable is declared in code the region runs (the region itself or a
// function it calls).
func (t *translator) callees(call *ast.CallExpr, runsIn func(*types.Var) bool) ([]callTarget, *unbounded) {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		return nil, nil // a conversion
	}
	if _, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok {
		return nil, nil
	}
	if fn := t.staticCallee(call); fn != nil {
		if d := t.facts.decls[fn]; d != nil {
			return []callTarget{{decl: d}}, nil
		}
		return nil, nil
	}
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok && t.isFuncName(ix.X) {
		fun = ix.X
	}
	if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	switch f := fun.(type) {
	case *ast.FuncLit:
		return nil, nil // walked where it stands, inside the calling code
	case *ast.SelectorExpr:
		sel := t.info.Selections[f]
		if sel == nil {
			if fn, ok := t.info.Uses[f.Sel].(*types.Func); ok && fn.Pkg() != t.p.types {
				return nil, nil // a function of another package
			}
			break
		}
		if sel.Kind() == types.MethodVal && types.IsInterface(sel.Recv()) {
			if t.stdHash(f.X) {
				return nil, nil // a checksum of the standard library's: its own state alone (heldHashWrite)
			}
			return t.ifaceTargets(sel.Recv(), f.Sel.Name, f.Sel.Pos())
		}
		if fn, ok := sel.Obj().(*types.Func); ok && fn.Pkg() != t.p.types {
			return nil, nil // a method of another package's type: see externalArgs
		}
	case *ast.Ident:
		if fn, ok := t.info.Uses[f].(*types.Func); ok && fn.Pkg() != t.p.types {
			return nil, nil // dot-imported
		}
	}
	ff := &funcFlow{t: t, runsIn: runsIn, seen: map[any]bool{}}
	ff.expr(call.Fun, false)
	return ff.out, ff.bad
}

// funcValues returns the bodies that the function value e may hold.
func (t *translator) funcValues(e ast.Expr, runsIn func(*types.Var) bool) ([]callTarget, *unbounded) {
	ff := &funcFlow{t: t, runsIn: runsIn, seen: map[any]bool{}}
	ff.expr(e, false)
	return ff.out, ff.bad
}

func (t *translator) isFuncName(e ast.Expr) bool {
	var id *ast.Ident
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	}
	_, ok := t.info.Uses[id].(*types.Func)
	return id != nil && ok
}

func (ff *funcFlow) fail(pos token.Pos, format string, args ...any) {
	if ff.bad == nil {
		ff.bad = &unbounded{pos: pos, what: fmt.Sprintf(format, args...)}
	}
}

func (ff *funcFlow) add(c callTarget) { ff.out = append(ff.out, c) }

// fn adds the declared function fn, of this package or another.
func (ff *funcFlow) fn(fn *types.Func, pos token.Pos) {
	if fn.Pkg() != ff.t.p.types {
		// It reaches this package's memory only through its arguments,
		// but may change its own package's variables.
		sw := ff.t.foreign.stateWrite(fn)
		if what := processChange(fn); what != "" {
			sw = &stateWrite{pos: pos, what: what, process: true}
		}
		if sw != nil && ff.bad == nil {
			ff.bad = &unbounded{pos: pos, what: fn.Pkg().Name() + "." + funcName(fn), state: sw, fn: fn}
		}
		return
	}
	d := ff.t.facts.decls[fn.Origin()]
	if d == nil || d.Body == nil {
		ff.fail(pos, "%s, a function without a body", fn.Name())
		return
	}
	ff.add(callTarget{decl: d})
}

// expr adds the function values that e may evaluate to.
func (ff *funcFlow) expr(e ast.Expr, outer bool) {
	t := ff.t
	if ff.seen[e] {
		return
	}
	ff.seen[e] = true
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.FuncLit:
		ff.add(callTarget{lit: x, outer: outer})
	case *ast.Ident:
		switch o := t.info.Uses[x].(type) {
		case *types.Nil:
		case *types.Func:
			ff.fn(o, x.Pos())
		case *types.Var:
			ff.variable(o, x.Pos(), outer)
		default:
			ff.fail(x.Pos(), "%s", x.Name)
		}
	case *ast.SelectorExpr:
		ff.selector(x, outer)
	case *ast.IndexExpr:
		if t.isFuncName(x.X) {
			ff.expr(x.X, outer)
			return
		}
		if ff.elements(x.X, outer) {
			return
		}
		ff.fail(x.Pos(), "an element of %s", t.text(x.X))
	case *ast.IndexListExpr:
		ff.expr(x.X, outer)
	case *ast.CallExpr:
		if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			ff.expr(x.Args[0], outer)
			return
		}
		if fn := t.staticCallee(x); fn != nil {
			ff.results(fn, x)
			return
		}
		if fn, _ := t.externalCallee(x); fn != nil {
			// A closure another package made: its code is not walked.
			ff.fail(x.Pos(), "the result of %s.%s, a function of another package", fn.Pkg().Name(), funcName(fn))
			return
		}
		// A function value called: the values its possible targets
		// return (poly := func(c float64) func(float64) float64 {...}).
		targets, bad := t.funcValues(x.Fun, ff.runsIn)
		if bad != nil {
			ff.fail(x.Pos(), "the result of a call CAPE cannot follow")
			return
		}
		for _, c := range targets {
			if c.decl != nil {
				ff.results(t.info.Defs[c.decl.Name].(*types.Func), x)
			} else {
				ff.litResults(c.lit, x)
			}
		}
	default:
		ff.fail(x.Pos(), "%s", t.text(x))
	}
}

// elements adds the function values the elements of x may hold, where x
// is a variable of this package (an array or slice of functions) whose
// only values are composite literals and appends to itself, and whose uses
// only read its elements otherwise (indexed, ranged over, measured): its
// elements are then those the literals and appends give it (`var ops =
// []func(float64) float64{math.Sqrt, square}`; `fs = append(fs, func() int
// {...})`). It reports whether x is such a variable.
func (ff *funcFlow) elements(x ast.Expr, outer bool) bool {
	t := ff.t
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := t.info.Uses[id].(*types.Var)
	if !ok || v.Pkg() != t.p.types || v.Parent() == t.p.types.Scope() && v.Exported() && t.p.name != "main" {
		return false
	}
	var elts []ast.Expr
	for _, s := range t.facts.sources[v] {
		switch e := ast.Unparen(s.expr).(type) {
		case nil:
			if !s.zero {
				return false
			}
		case *ast.CompositeLit:
			for _, el := range e.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				elts = append(elts, el)
			}
		case *ast.CallExpr:
			if !t.appendsTo(e, v) || e.Ellipsis.IsValid() {
				return false
			}
			elts = append(elts, e.Args[1:]...)
		default:
			return false
		}
	}
	for _, u := range t.facts.uses[v] {
		if !t.readsElements(u, v) {
			return false
		}
	}
	if ff.seen[v] {
		return true
	}
	ff.seen[v] = true
	outer = outer || !ff.runsIn(v)
	for _, e := range elts {
		ff.expr(e, outer)
	}
	return true
}

// appendsTo reports whether call is append(v, ...).
func (t *translator) appendsTo(call *ast.CallExpr, v *types.Var) bool {
	b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
	if !ok || b.Name() != "append" || len(call.Args) == 0 {
		return false
	}
	id, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
	return ok && t.info.Uses[id] == v
}

// readsElements reports whether the use u of v, an array or slice of
// functions, only reads its elements: u[i] as a value (not assigned, not
// addressed), len(u) or cap(u), range u, or the first argument of an
// append whose result is assigned to v.
func (t *translator) readsElements(u *ast.Ident, v *types.Var) bool {
	switch p := t.parent[u].(type) {
	case *ast.IndexExpr:
		if p.X != u {
			return true // u is the index
		}
		switch pp := t.parent[p].(type) {
		case *ast.AssignStmt:
			return !slices.Contains(pp.Lhs, ast.Expr(p))
		case *ast.IncDecStmt:
			return false
		case *ast.UnaryExpr:
			return pp.Op != token.AND
		case *ast.RangeStmt:
			return pp.Key != ast.Expr(p) && pp.Value != ast.Expr(p)
		}
		return true
	case *ast.CallExpr:
		if b, ok := t.info.Uses[calleeIdent(p)].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return true
		}
		as, ok := t.parent[p].(*ast.AssignStmt)
		if !ok || !t.appendsTo(p, v) || p.Args[0] != u {
			return false
		}
		for i, r := range as.Rhs {
			if r == ast.Expr(p) && i < len(as.Lhs) {
				lid, ok := as.Lhs[i].(*ast.Ident)
				return ok && t.info.Uses[lid] == v
			}
		}
		return false
	case *ast.AssignStmt:
		return slices.Contains(p.Lhs, ast.Expr(u)) // v = append(v, ...), whose value elements checked
	case *ast.RangeStmt:
		return p.X == u
	}
	return false
}

func (ff *funcFlow) selector(x *ast.SelectorExpr, outer bool) {
	t := ff.t
	sel := t.info.Selections[x]
	if sel == nil { // a qualified identifier
		switch o := t.info.Uses[x.Sel].(type) {
		case *types.Func:
			ff.fn(o, x.Pos())
		default:
			ff.fail(x.Pos(), "%s, a variable of another package", t.text(x))
		}
		return
	}
	switch sel.Kind() {
	case types.MethodVal:
		if types.IsInterface(sel.Recv()) {
			out, bad := t.ifaceTargets(sel.Recv(), x.Sel.Name, x.Sel.Pos())
			ff.out = append(ff.out, out...)
			if bad != nil && ff.bad == nil {
				ff.bad = bad
			}
			return
		}
		fn := sel.Obj().(*types.Func)
		if fn.Pkg() != t.p.types {
			ff.fail(x.Pos(), "method value %s of another package's type, which may hold this package's memory", t.text(x))
			return
		}
		ff.fn(fn, x.Pos())
	case types.MethodExpr:
		if fn := sel.Obj().(*types.Func); fn.Pkg() == t.p.types {
			ff.fn(fn, x.Pos())
			return
		}
		ff.fail(x.Pos(), "method expression %s of another package's type", t.text(x))
	default:
		ff.fail(x.Pos(), "field %s", t.text(x))
	}
}

// results adds the function values that fn returns.
func (ff *funcFlow) results(fn *types.Func, call *ast.CallExpr) {
	t := ff.t
	d := t.facts.decls[fn]
	sig := fn.Type().(*types.Signature)
	if d == nil || d.Body == nil || sig.Results().Len() != 1 || sig.Results().At(0).Name() != "" {
		ff.fail(call.Pos(), "a call of %s, which CAPE cannot follow (it needs one unnamed result)", fn.Name())
		return
	}
	ff.returned(d.Body)
}

// returned adds the function values that body's return statements (not
// those of literals in it) return.
func (ff *funcFlow) returned(body *ast.BlockStmt) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 1 {
				ff.expr(n.Results[0], true)
			}
		}
		return true
	})
}

// litResults adds the function values that the function literal lit
// returns, called by call.
func (ff *funcFlow) litResults(lit *ast.FuncLit, call *ast.CallExpr) {
	res := lit.Type.Results
	if res == nil || len(res.List) != 1 || len(res.List[0].Names) > 0 {
		ff.fail(call.Pos(), "a call of a function literal CAPE cannot follow (it needs one unnamed result)")
		return
	}
	ff.returned(lit.Body)
}

// variable adds the function values that v may hold: every value assigned
// to it in the package, and for a parameter the arguments of every call.
func (ff *funcFlow) variable(v *types.Var, pos token.Pos, outer bool) {
	t := ff.t
	if ff.seen[v] {
		return
	}
	ff.seen[v] = true
	if v.Pkg() != t.p.types {
		ff.fail(pos, "%s, a variable of package %s", v.Name(), v.Pkg().Name())
		return
	}
	if v.IsField() {
		ff.fail(pos, "field %s", v.Name())
		return
	}
	if !ff.runsIn(v) {
		outer = true
	}
	pkgLevel := v.Parent() == t.p.types.Scope()
	if pkgLevel && v.Exported() && t.p.name != "main" {
		ff.fail(pos, "exported variable %s, which other packages may assign", v.Name())
		return
	}
	for _, u := range t.facts.uses[v] {
		if p, ok := t.parent[u].(*ast.UnaryExpr); ok && p.Op == token.AND {
			ff.fail(u.Pos(), "%s, whose address is taken here (it may be assigned through the pointer)", v.Name())
			return
		}
	}
	for _, s := range t.facts.sources[v] {
		switch {
		case s.zero:
		case s.rng != nil && ff.elements(s.rng.X, outer):
			// The value of a range over a table of functions: its elements.
		case s.unknown != "":
			ff.fail(s.pos, "%s, assigned here from %s", v.Name(), s.unknown)
		case s.recv:
			ff.fail(s.pos, "the receiver %s", v.Name())
		case s.isParam:
			ff.param(v, s, outer)
		default:
			ff.expr(s.expr, outer)
		}
	}
}

// param adds the arguments passed for the parameter v, described by s.
func (ff *funcFlow) param(v *types.Var, s source, outer bool) {
	t := ff.t
	switch {
	case s.param == nil:
		lit := t.facts.litOf[v]
		if lit == nil {
			ff.fail(s.pos, "%s, a parameter of a function literal", v.Name())
			return
		}
		if s.index == 0 && t.rangedIterator(lit) {
			return // yield: the body of the range statements, walked where they stand
		}
		calls, where := t.litCalls(lit)
		if where != "" {
			ff.fail(s.pos, "%s, a parameter of a function literal that is %s", v.Name(), where)
			return
		}
		for _, call := range calls {
			if len(call.Args) <= s.index || call.Ellipsis.IsValid() {
				ff.fail(call.Pos(), "%s, an argument of a call CAPE cannot follow", v.Name())
				continue
			}
			ff.expr(call.Args[s.index], outer)
		}
		return
	case t.facts.valueUse[s.param]:
		ff.fail(s.pos, "%s, a parameter of %s, which is used as a function value (CAPE cannot see every caller)", v.Name(), s.param.Name())
		return
	case s.param.Exported() && t.p.name != "main":
		ff.fail(s.pos, "%s, a parameter of the exported %s, which other packages may call", v.Name(), s.param.Name())
		return
	}
	sig := s.param.Type().(*types.Signature)
	if sig.Variadic() && s.index == sig.Params().Len()-1 {
		ff.fail(s.pos, "%s, a variadic parameter", v.Name())
		return
	}
	for _, call := range t.facts.calls[s.param] {
		if len(call.Args) != sig.Params().Len() || call.Ellipsis.IsValid() {
			ff.fail(call.Pos(), "%s, an argument of a call CAPE cannot follow", v.Name())
			continue
		}
		ff.expr(call.Args[s.index], outer)
	}
}

// stdRecvRead reports whether fn, a method of the standard library called
// on recv, changes nothing recv refers to that a region's merge must see:
// what stdRecvUse knows to read (f.ReadAt, img.At), or a write to the
// standard output or error (streamWrite, stdLoggerPrint).
func (t *translator) stdRecvRead(fn *types.Func, recv ast.Expr) bool {
	u, ok := stdRecvUse(fn)
	return ok && !u.writes || t.streamWrite(fn, recv) || t.stdLoggerPrint(fn, recv)
}

// streamWrite reports whether fn, called on recv, writes to the standard
// output or error: os.Stdout.WriteString(s), or out.Write(p) with out a
// variable that only ever holds one of them (isStdStream).
func (t *translator) streamWrite(fn *types.Func, recv ast.Expr) bool {
	return fn != nil && recv != nil && (fn.Name() == "Write" || fn.Name() == "WriteString") && t.isStdStream(recv)
}

// stdLoggerPrint reports whether fn, called on recv, is a printing method
// of a *log.Logger that only ever writes to the standard output or error
// (lg := log.New(os.Stdout, "sim: ", 0); lg.Printf(...)): it changes
// nothing but its own buffer, and prints as fmt.Println does.
func (t *translator) stdLoggerPrint(fn *types.Func, recv ast.Expr) bool {
	if fn == nil || recv == nil || fn.Pkg() == nil || fn.Pkg().Path() != "log" || !strings.HasPrefix(fn.Name(), "Print") {
		return false
	}
	made := t.everySource(recv, func(s source) bool {
		call, ok := ast.Unparen(s.expr).(*ast.CallExpr)
		return ok && t.pkgFunc(call, "log", "New") && len(call.Args) == 3 && t.isStdStream(call.Args[0])
	})
	if !made {
		return false
	}
	for _, u := range t.facts.uses[t.varOf(recv)] {
		if sel, ok := t.parent[t.outerParens(u)].(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Set") {
			return false // lg.SetOutput(f)
		}
	}
	return true
}

// everySource reports whether e is a variable of the package whose
// address is not taken, that has values, and whose every value ok
// accepts (a source with an unknown value never is).
func (t *translator) everySource(e ast.Expr, ok func(source) bool) bool {
	v := t.varOf(e)
	if v == nil || v.Pkg() != t.p.types || len(t.facts.sources[v]) == 0 {
		return false
	}
	for _, s := range t.facts.sources[v] {
		if s.unknown != "" || !ok(s) {
			return false
		}
	}
	for _, u := range t.facts.uses[v] {
		if x, isAddr := t.parent[t.outerParens(u)].(*ast.UnaryExpr); isAddr && x.Op == token.AND {
			return false // what is stored through the address is not seen
		}
	}
	return true
}

// hashCtors are the standard library's constructors of hashes (hash.Hash
// and its kin), whose methods change only the hash's own state, and write
// nothing their arguments refer to (Write reads p; Sum appends to b).
var hashCtors = map[string]bool{
	"hash/fnv.New32": true, "hash/fnv.New32a": true, "hash/fnv.New64": true, "hash/fnv.New64a": true,
	"hash/fnv.New128": true, "hash/fnv.New128a": true, "hash/crc32.NewIEEE": true, "hash/crc32.New": true,
	"hash/crc64.New": true, "hash/adler32.New": true, "crypto/sha256.New": true, "crypto/sha256.New224": true,
	"crypto/sha1.New": true, "crypto/md5.New": true, "crypto/sha512.New": true, "crypto/sha512.New384": true,
}

// hashReads are the methods of a standard-library hash that leave its
// state as it is.
var hashReads = map[string]bool{"Sum": true, "Sum32": true, "Sum64": true, "Size": true, "BlockSize": true}

// heldHashWrite returns why call, in code a region runs, is refused: a
// method that changes the state of a standard-library hash (stdHash) made
// outside that code, which each node holds its own of; or "".
func (t *translator) heldHashWrite(call *ast.CallExpr, runsIn func(*types.Var) bool) string {
	f, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || hashReads[f.Sel.Name] || !t.stdHash(f.X) {
		return ""
	}
	v := t.varOf(f.X)
	if v == nil || runsIn(v) {
		return ""
	}
	return fmt.Sprintf("%s changes the state of the hash %s, made before the parallel region (at %s): that state is on each node's own Go heap, and what the other nodes write to it is lost; make the hash in the iteration (or section) and combine what it computes after the region, or hash after the region", t.text(f), t.text(f.X), t.where(v.Pos()))
}

// stdHash reports whether e is a variable whose every value is a hash a
// constructor of hashCtors made.
func (t *translator) stdHash(e ast.Expr) bool {
	return t.everySource(e, func(s source) bool {
		call, ok := ast.Unparen(s.expr).(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := t.packageFunc(call)
		return fn != nil && hashCtors[fn.Pkg().Path()+"."+fn.Name()]
	})
}

// ifaceTargets returns the methods named name of every type of the package
// that implements the interface (or type parameter) recv, or why they
// cannot be bounded: a type of another package may implement it too.
func (t *translator) ifaceTargets(recv types.Type, name string, pos token.Pos) ([]callTarget, *unbounded) {
	iface, _ := recv.Underlying().(*types.Interface)
	if iface == nil {
		return nil, &unbounded{pos: pos, what: "a method of " + recv.String()}
	}
	if ext := t.externalImpl(iface); ext != "" {
		return nil, &unbounded{pos: pos, what: fmt.Sprintf("a method of %s, which %s implements too (CAPE follows only this package's types)", types.TypeString(recv, t.qualifier), ext)}
	}
	var out []callTarget
	for _, ct := range t.implementations(iface) {
		obj, _, _ := types.LookupFieldOrMethod(ct, true, t.p.types, name)
		fn, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		if fn.Pkg() != t.p.types {
			return nil, &unbounded{pos: pos, what: fmt.Sprintf("method %s of %s, promoted from another package's type", name, types.TypeString(ct, t.qualifier))}
		}
		if d := t.facts.decls[fn.Origin()]; d != nil && d.Body != nil {
			out = append(out, callTarget{decl: d})
		}
	}
	return out, nil
}

// qualifier names other packages by name and this one not at all.
func (t *translator) qualifier(p *types.Package) string {
	if p == t.p.types {
		return ""
	}
	return p.Name()
}

// implementations returns the concrete types of the package (T and *T for
// every named type T, wherever it is declared) that implement iface.
func (t *translator) implementations(iface *types.Interface) []types.Type {
	var out []types.Type
	for _, tn := range t.typeNames() {
		T := tn.Type()
		if types.IsInterface(T) {
			continue
		}
		if _, isPtr := T.Underlying().(*types.Pointer); isPtr {
			continue
		}
		if types.Implements(T, iface) {
			out = append(out, T)
		} else if types.Implements(types.NewPointer(T), iface) {
			out = append(out, types.NewPointer(T))
		}
	}
	return out
}

// typeNames returns the package's named types, in source order.
func (t *translator) typeNames() []*types.TypeName { return t.named }

// externalImpl names a type of another package (among those this package
// imports, directly or not) that implements iface, or returns "".
func (t *translator) externalImpl(iface *types.Interface) string {
	if iface.NumMethods() == 0 {
		return "every type"
	}
	for _, c := range t.extImpls {
		if types.Identical(c.iface, iface) {
			return c.impl
		}
	}
	impl := t.findExternalImpl(iface)
	t.extImpls = append(t.extImpls, extImpl{iface, impl})
	return impl
}

// An extImpl caches externalImpl's answer for one interface.
type extImpl struct {
	iface *types.Interface
	impl  string
}

func (t *translator) findExternalImpl(iface *types.Interface) string {
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package) string
	visit = func(p *types.Package) string {
		if seen[p] {
			return ""
		}
		seen[p] = true
		scope := p.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() || types.IsInterface(tn.Type()) {
				continue
			}
			if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
				if hasMethodNames(n, iface) { // an instance may implement iface
					return p.Name() + "." + name
				}
				continue
			}
			if types.Implements(tn.Type(), iface) || types.Implements(types.NewPointer(tn.Type()), iface) {
				return p.Name() + "." + name
			}
		}
		for _, imp := range p.Imports() {
			if s := visit(imp); s != "" {
				return s
			}
		}
		return ""
	}
	for _, imp := range t.p.types.Imports() {
		if s := visit(imp); s != "" {
			return s
		}
	}
	return ""
}

// readOnlyArgs lists the packages whose functions write, of what they are
// handed, at most the slices and pointers passed as arguments themselves
// (which access counts as written), never memory reached through them.
var readOnlyArgs = map[string]bool{
	"errors": true, "fmt": true, "math": true, "math/bits": true, "slices": true, "sort": true,
	"strconv": true, "strings": true, "time": true, "unicode": true, "unicode/utf8": true,
}

// readsInterfaces reports whether fn, of another package, only reads the
// interface value a passed as its argument i: the printing functions of
// fmt (writing to os.Stdout or os.Stderr) and package errors.
func (t *translator) readsInterfaces(fn *types.Func, i int, a ast.Expr) bool {
	switch fn.Pkg().Path() {
	case "errors":
		return true
	case "fmt":
	default:
		return false
	}
	switch fn.Name() {
	case "Print", "Printf", "Println", "Sprint", "Sprintf", "Sprintln", "Errorf":
		return true
	case "Fprint", "Fprintf", "Fprintln":
		return i > 0 || t.isStdStream(a)
	}
	return false
}

// isStdStream reports whether e is os.Stdout or os.Stderr: writing to
// them changes no memory the region must hand back (a region's standard
// output is captured and ordered; its standard error is each node's).
func (t *translator) isStdStream(e ast.Expr) bool {
	return t.stdStream(e, 0)
}

// stdStream is isStdStream's work: e is os.Stdout or os.Stderr, or a
// variable of the package (var w io.Writer = os.Stdout), or a parameter of
// its functions, whose every value is one, and whose address is not
// taken.
func (t *translator) stdStream(e ast.Expr, depth int) bool {
	if isPkgVar(t.info, e, "os", "Stdout", "Stderr") {
		return true
	}
	return depth <= 3 && t.everySource(e, func(s source) bool {
		if s.isParam && !s.recv && s.param != nil && !t.facts.valueUse[s.param] {
			// A parameter of the package's function: every call's
			// argument (report(os.Stdout, ...)).
			for _, call := range t.facts.calls[s.param] {
				if s.index >= len(call.Args) || call.Ellipsis.IsValid() || !t.stdStream(call.Args[s.index], depth+1) {
					return false
				}
			}
			return true
		}
		return s.expr != nil && t.stdStream(s.expr, depth+1) // (not the zero value)
	})
}

// fmtMethods are the methods that package fmt calls on its operands.
var fmtMethods = map[string]bool{"String": true, "GoString": true, "Error": true, "Format": true}

// externalCallee returns the package and name of the function or method of
// another package that call calls statically, and the receiver's operand of
// a method.
func (t *translator) externalCallee(call *ast.CallExpr) (fn *types.Func, recv ast.Expr) {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		return nil, nil
	}
	fun := calleeOf(call)
	switch f := fun.(type) {
	case *ast.Ident:
		fn, _ = t.info.Uses[f].(*types.Func)
	case *ast.SelectorExpr:
		fn, _ = t.info.Uses[f.Sel].(*types.Func)
		if sel := t.info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal || types.IsInterface(sel.Recv()) {
				return nil, nil
			}
			recv = f.X
		}
	}
	if fn == nil || fn.Pkg() == nil || fn.Pkg() == t.p.types {
		return nil, nil
	}
	return fn, recv
}

// externalArgs handles a call of another package's function or method,
// which CAPE does not walk: it may call the function values it is handed
// (walked here), call the methods of the interface values (walked too), and
// write through the slices and pointers it receives: those passed directly
// are counted as written by access; those held inside its arguments cannot
// be placed, so they are refused.
func (w *regionWalk) externalArgs(call *ast.CallExpr, via string) {
	t := w.t
	fn, recv := t.externalCallee(call)
	if fn == nil {
		return
	}
	name := fn.Pkg().Name() + "." + funcName(fn)
	w.syncUpdate(call, fn, recv, name, via)
	if sw := t.foreign.stateWrite(fn); sw != nil {
		w.foreignState(call.Pos(), name, fn, sw, via)
	}
	if via != "" {
		w.t.handedUses(w.r, call, true, w.errorf)
	}
	if recv == nil && processState[fn.Pkg().Path()+"."+fn.Name()] {
		w.errorf(call.Pos(), "%s in the parallel region%s changes the process's state, which every node has its own of: only the node that runs the iteration would see the change; make it before or after the region", name, via)
	}
	if what, at := t.redirectedPrint(fn, call); at.IsValid() {
		w.errorf(call.Pos(), "%s prints in the parallel region%s, but %s (%s): every node would write its own iterations' output there, each at its own offset, over the others'; keep the lines in a slice indexed by the iteration and print them after the region, or leave the output as it is and redirect the job's (cape run ... > FILE)", name, via, what, t.where(at))
	}
	if readsStdin(t.info, fn, call) {
		w.errorf(call.Pos(), "%s reads the standard input in the parallel region%s: every node reads its own copy of the input stream, from where the sequential code left it, so the nodes' iterations would read the same values; read the input before the region, into a slice the iterations index", name, via)
	}
	if recv == nil && sharedDraw(fn) {
		w.errorf(call.Pos(), "%s in the parallel region%s draws from math/rand's one generator, which every node holds in the same state, so every node would draw the same numbers; give each iteration a generator of its own (math/rand/v2: r := rand.New(rand.NewPCG(seed, uint64(i))))", name, via)
	}
	switch {
	case !t.opaqueRecv(fn, recv):
	case t.foreign.knownRecv(fn): // sharedCopy
		w.errorf(recv.Pos(), "%s writes through the slices that %s holds%s, a copy of a struct whose slices other values may share (a copy, a field, an element, a slice handed to its literal), and CAPE reads the loop's dependences through them by name; call it on a variable defined by a composite literal whose slices are made in it (v := T{Data: make(...)}) and used only through its fields and methods", name, t.text(recv), via)
	default:
		w.errorf(recv.Pos(), "%s may write through the slices or pointers that %s holds%s, and CAPE cannot follow them into the arena", name, t.text(recv), via)
	}
	sig, _ := t.info.TypeOf(call.Fun).(*types.Signature)
	if sig == nil {
		return
	}
	for i, a := range call.Args {
		at := t.info.TypeOf(a)
		if at == nil {
			continue
		}
		if _, isFunc := at.Underlying().(*types.Signature); isFunc {
			targets, bad := t.funcValues(a, w.runsIn)
			switch {
			case bad != nil && bad.state != nil:
				w.foreignState(a.Pos(), bad.what+" (the function value "+t.text(a)+", handed to "+name+")", bad.fn, bad.state, via)
			case bad != nil:
				w.errorf(a.Pos(), "%s may call the function value %s%s, but CAPE cannot tell which function it is: it comes from %s at %s", name, t.text(a), via, bad.what, t.where(bad.pos))
			}
			for _, c := range targets {
				w.enter(c)
			}
			continue
		}
		if pt := paramType(sig, i, call.Ellipsis.IsValid()); pt != nil && types.IsInterface(pt) {
			w.methodsOf(at, fn.Pkg().Path() == "fmt")
		}
		if types.IsInterface(at) {
			// Its dynamic value may be a slice or pointer of this package's.
			if !t.readsInterfaces(fn, i, a) && !t.freshValue(a) {
				w.errorf(a.Pos(), "%s may write through the interface value %s%s, whose dynamic value CAPE cannot follow into the arena; pass a slice or pointer of a known type", name, t.text(a), via)
			}
			continue
		}
		if !readOnlyArgs[fn.Pkg().Path()] && innerRefs(at, true) && !t.freshValue(a) && !t.foreign.paramUse(fn, paramIndex(sig, i)).known {
			w.errorf(a.Pos(), "%s may write through the slices or pointers that %s holds%s, and CAPE cannot follow them into the arena; pass slices of numbers", name, t.text(a), via)
		}
	}
}

// opaqueRecv reports whether fn, a method of another package called on
// recv, may write through the slices or pointers that recv holds in ways
// CAPE cannot follow: recv holds some, is not the iteration's own, and
// the method's source does not show what it does with them (paramUse).
// A WaitGroup's methods are syncUpdate's; writing to os.Stdout or
// os.Stderr changes no memory.
func (t *translator) opaqueRecv(fn *types.Func, recv ast.Expr) bool {
	return recv != nil && !isWaitGroupMethod(fn) && !t.stdRecvRead(fn, recv) && !readOnlyArgs[fn.Pkg().Path()] && innerRefs(t.info.TypeOf(recv), false) && !t.freshValue(recv) &&
		(!t.foreign.knownRecv(fn) || t.sharedCopy(fn, recv))
}

// sharedCopy reports whether fn, a method of another package with a value
// receiver that writes through the slices its copy holds, is called on a
// struct value recv (not a pointer to one, nor a named slice type's value)
// that other values may share those slices with: unless
// recv is a loneStruct, the loop's dependences through the writes could
// not be told from its name.
func (t *translator) sharedCopy(fn *types.Func, recv ast.Expr) bool {
	return !pointerRecv(fn) && isStruct(t.info.TypeOf(recv)) && t.foreign.recvUse(fn).writes && !t.loneStruct(recv)
}

// loneStruct reports whether e names a local variable of a struct type
// defined by a composite literal whose slice and pointer fields are each
// made there (make, new), and whose every use selects a field or method of
// it, storing into none of its fields: no other variable shares the memory
// its fields refer to (v := la.VMat{R: n, C: n, Data: make([]float64, n*n)}).
func (t *translator) loneStruct(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v := t.varOf(id)
	if v == nil || isPackageVar(v) || v.IsField() || !isStruct(v.Type()) {
		return false
	}
	lit := t.definingLit(v)
	if lit == nil {
		return false
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return false
		}
		if pointerFree(t.info.TypeOf(kv.Value)) {
			continue
		}
		call, ok := ast.Unparen(kv.Value).(*ast.CallExpr)
		if !ok {
			return false
		}
		if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); !ok || b.Name() != "make" && b.Name() != "new" {
			return false
		}
	}
	for use, obj := range t.info.Uses {
		if obj != v {
			continue
		}
		sel, ok := t.parent[use].(*ast.SelectorExpr)
		if !ok || sel.X != use || storedInto(t.parent, sel) {
			return false
		}
	}
	return true
}

// definingLit returns the composite literal that defines v (v := T{...},
// var v = T{...}), or nil.
func (t *translator) definingLit(v *types.Var) *ast.CompositeLit {
	for def, obj := range t.info.Defs {
		if obj != v {
			continue
		}
		var rhs ast.Expr
		switch p := t.parent[def].(type) {
		case *ast.AssignStmt:
			if i := slices.Index(p.Lhs, ast.Expr(def)); i >= 0 && len(p.Rhs) == len(p.Lhs) {
				rhs = p.Rhs[i]
			}
		case *ast.ValueSpec:
			if i := slices.Index(p.Names, def); i >= 0 && len(p.Values) == len(p.Names) {
				rhs = p.Values[i]
			}
		}
		lit, _ := ast.Unparen(rhs).(*ast.CompositeLit)
		return lit
	}
	return nil
}

// methodsOf walks every method that a value of type typ, handed to another
// package as an interface, may have called on it (only fmt's formatting
// methods when onlyFmt).
func (w *regionWalk) methodsOf(typ types.Type, onlyFmt bool) {
	t := w.t
	dyn := []types.Type{typ}
	if iface, ok := typ.Underlying().(*types.Interface); ok {
		dyn = t.implementations(iface)
	}
	for _, d := range dyn {
		ms := types.NewMethodSet(d)
		for i := range ms.Len() {
			fn, ok := ms.At(i).Obj().(*types.Func)
			if !ok || fn.Pkg() != t.p.types || onlyFmt && !fmtMethods[fn.Name()] {
				continue
			}
			if decl := t.facts.decls[fn.Origin()]; decl != nil {
				w.enter(callTarget{decl: decl})
			}
		}
	}
}

// innerRefs reports whether a value of type typ holds references through
// which a callee could write memory: slices, pointers, maps, channels,
// functions or interfaces, below its top level when top (the top-level
// slice or pointer being what access already counts as written).
func innerRefs(typ types.Type, top bool) bool {
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Slice:
		if top {
			return innerRefs(u.Elem(), false)
		}
		return true
	case *types.Pointer:
		if top {
			return innerRefs(u.Elem(), false)
		}
		return true
	case *types.Array:
		return innerRefs(u.Elem(), false)
	case *types.Struct:
		for i := range u.NumFields() {
			if innerRefs(u.Field(i).Type(), false) {
				return true
			}
		}
		return false
	}
	return true // map, chan, func, interface
}

// hasMethodNames reports whether the generic type n declares a method of
// every name of iface's methods.
func hasMethodNames(n *types.Named, iface *types.Interface) bool {
	names := map[string]bool{}
	for i := range n.NumMethods() {
		names[n.Method(i).Name()] = true
	}
	for i := range iface.NumMethods() {
		m := iface.Method(i)
		if !names[m.Name()] || !m.Exported() && m.Pkg() != n.Obj().Pkg() {
			return false
		}
	}
	return true
}

// litCalls returns every call of the function literal lit, when they are
// all known: lit is called where it stands, or is the only value of a local
// variable that is only ever called. Otherwise it says where lit's value
// goes instead.
func (t *translator) litCalls(lit *ast.FuncLit) ([]*ast.CallExpr, string) {
	if call, ok := t.parent[lit].(*ast.CallExpr); ok && call.Fun == ast.Expr(lit) {
		return []*ast.CallExpr{call}, ""
	}
	var v *types.Var
	switch p := t.parent[lit].(type) {
	case *ast.AssignStmt:
		for i, r := range p.Rhs {
			if r == ast.Expr(lit) && len(p.Lhs) == len(p.Rhs) {
				v = t.varOf(p.Lhs[i])
			}
		}
	case *ast.ValueSpec:
		for i, r := range p.Values {
			if r == ast.Expr(lit) && len(p.Names) == len(p.Values) {
				v = t.varOf(p.Names[i])
			}
		}
	}
	if v == nil || v.Parent() == t.p.types.Scope() {
		return nil, "a value CAPE does not follow to its calls"
	}
	for _, s := range t.facts.sources[v] {
		if !s.zero && s.expr != ast.Expr(lit) {
			return nil, fmt.Sprintf("%s, which is also given another value at %s", v.Name(), t.where(s.pos))
		}
	}
	calls, at := t.varCalls(v, 0)
	if at != nil {
		return nil, fmt.Sprintf("%s, which is used at %s other than by calling it or handing it to a function of the package that only calls it", v.Name(), t.where(at.Pos()))
	}
	return calls, ""
}

// rangedIterator reports whether lit is an iterator (func(yield func(…)
// bool)) that a function of the package returns, and every call of that
// function is ranged over (for e := range evens(n)): then lit's yield is
// only ever the body of those range statements.
func (t *translator) rangedIterator(lit *ast.FuncLit) bool {
	sig, _ := t.info.TypeOf(lit).(*types.Signature)
	if sig == nil || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return false
	}
	if yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature); !ok || yield.Results().Len() != 1 || !types.Identical(yield.Results().At(0).Type(), types.Typ[types.Bool]) {
		return false
	}
	if _, ok := t.parent[t.outerParens(lit)].(*ast.ReturnStmt); !ok {
		return false
	}
	d, _ := t.enclosing(lit, isFunc).(*ast.FuncDecl)
	if d == nil {
		return false
	}
	fn, _ := t.info.Defs[d.Name].(*types.Func)
	if fn == nil || t.facts.valueUse[fn] || fn.Exported() && t.p.name != "main" || len(t.facts.calls[fn]) == 0 {
		return false
	}
	for _, call := range t.facts.calls[fn] {
		rs, ok := t.parent[t.outerParens(call)].(*ast.RangeStmt)
		if !ok || ast.Unparen(rs.X) != ast.Expr(call) {
			return false
		}
	}
	return true
}

// varCalls returns the calls of the function value that the variable v (a
// local or a parameter) holds: its uses that call it, and, where it is
// handed to a function of the package (solve(f, y) with func solve(rhs
// RHS, y []float64)), that function's calls of its parameter, followed
// likewise. Otherwise it returns the first use that is neither.
func (t *translator) varCalls(v *types.Var, depth int) ([]*ast.CallExpr, ast.Node) {
	var calls []*ast.CallExpr
	for _, u := range t.facts.uses[v] {
		call, ok := t.parent[t.outerParens(u)].(*ast.CallExpr)
		if ok && ast.Unparen(call.Fun) == ast.Expr(u) {
			calls = append(calls, call)
			continue
		}
		param := t.handedParam(call, u)
		if !ok || param == nil || depth > 3 {
			return nil, u
		}
		inner, at := t.varCalls(param, depth+1)
		if at != nil {
			return nil, u
		}
		calls = append(calls, inner...)
	}
	return calls, nil
}

// handedParam returns the parameter (or receiver) of a function of the
// package, with a body, that u, an argument (or the receiver's operand) of
// call, gives its value to, if that parameter is never assigned; nil
// otherwise.
func (t *translator) handedParam(call *ast.CallExpr, u ast.Node) *types.Var {
	if call == nil || call.Ellipsis.IsValid() {
		return nil
	}
	fn := t.staticCallee(call)
	if fn == nil || t.facts.decls[fn] == nil || t.facts.decls[fn].Body == nil {
		return nil
	}
	at := t.outerParens(u)
	k := -2
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.X == at {
		k = -1 // the receiver
	}
	for i, a := range call.Args {
		if a == at {
			k = paramIndex(fn.Type().(*types.Signature), i)
		}
	}
	if k < -1 {
		return nil // neither (or a variadic argument)
	}
	p := paramVar(t.info, t.facts.decls[fn], k)
	if p == nil {
		return nil
	}
	for _, s := range t.facts.sources[p] {
		if !s.isParam && !s.recv {
			return nil // assigned in the body
		}
	}
	return p
}

// needLitParam requires the memory that v, parameter number s.index of a
// function literal, refers to to be in the arena: the arguments of every
// call of the literal.
func (t *analyzer) needLitParam(tr trace, v *types.Var, s source, why token.Pos) {
	lit := t.facts.litOf[v]
	var calls []*ast.CallExpr
	where := "a value CAPE does not follow to its calls"
	if lit != nil {
		calls, where = t.litCalls(lit)
	}
	sig, _ := t.info.TypeOf(lit).(*types.Signature)
	if where != "" || sig == nil {
		t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but it is a parameter of a function literal that is %s: CAPE cannot see every call; call the literal through a local variable, or pass the slice by closure", v.Name(), t.where(why), where)
		return
	}
	if sig.Variadic() && s.index == sig.Params().Len()-1 {
		t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but it is a variadic parameter", v.Name(), t.where(why))
		return
	}
	for _, call := range calls {
		if len(call.Args) != sig.Params().Len() || call.Ellipsis.IsValid() {
			t.originErrorf(tr, call.Pos(), "%s is written through in the parallel region at %s; CAPE cannot follow this call's arguments", v.Name(), t.where(why))
			continue
		}
		t.needExpr(tr, call.Args[s.index], v.Name(), why)
	}
}

// processState lists the functions that change state each process has its
// own of (its environment, working directory, umask), which a region's
// writes do not carry to the other nodes.
var processState = map[string]bool{
	"os.Setenv": true, "os.Unsetenv": true, "os.Clearenv": true, "os.Chdir": true,
	"log.SetPrefix": true, "log.SetFlags": true, "log.SetOutput": true, "flag.Set": true, "flag.Parse": true,
	"runtime/debug.SetGCPercent": true, "runtime/debug.SetMemoryLimit": true, "runtime/debug.SetMaxThreads": true,
	"syscall.Setenv": true, "syscall.Unsetenv": true, "syscall.Clearenv": true, "syscall.Chdir": true, "syscall.Umask": true,
}

// sharedDraws are math/rand's top-level functions that draw from its
// package generator (math/rand seeds it alike on every node).
var sharedDraws = map[string]bool{
	"Int": true, "Intn": true, "Int31": true, "Int31n": true, "Int63": true, "Int63n": true,
	"Uint32": true, "Uint64": true, "Float32": true, "Float64": true, "ExpFloat64": true, "NormFloat64": true,
	"Perm": true, "Shuffle": true, "Read": true, "Seed": true,
}

// sharedDraw reports whether fn is one of math/rand's top-level functions
// drawing from its package generator.
func sharedDraw(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	return fn.Pkg() != nil && fn.Pkg().Path() == "math/rand" && sharedDraws[fn.Name()] && sig != nil && sig.Recv() == nil
}

// readsStdin reports whether call, of fn of another package (in code of
// the type information info), reads the process's standard input: fmt's
// Scan, Scanln and Scanf, or any call handed os.Stdin (fmt.Fscan(os.Stdin,
// …), bufio.NewScanner(os.Stdin), os.Stdin.Read).
func readsStdin(info *types.Info, fn *types.Func, call *ast.CallExpr) bool {
	if scansStdin(fn) {
		return true
	}
	isStdin := func(e ast.Expr) bool { return isPkgVar(info, e, "os", "Stdin") }
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && isStdin(sel.X) {
		return true
	}
	return slices.ContainsFunc(call.Args, isStdin)
}

// scansStdin reports whether fn is one of fmt's functions that read the
// standard input whatever their arguments (fmt.Scan, Scanln, Scanf).
func scansStdin(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	return fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && sig != nil && sig.Recv() == nil && slices.Contains([]string{"Scan", "Scanln", "Scanf"}, fn.Name())
}

// isPkgVar reports whether e (in code of the type information info)
// selects one of the package variables names of the package path
// (os.Stdout, io.Discard).
func isPkgVar(info *types.Info, e ast.Expr, path string, names ...string) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := info.Uses[sel.Sel].(*types.Var)
	return ok && v.Pkg() != nil && v.Pkg().Path() == path && slices.Contains(names, v.Name())
}

// isWaitGroupMethod reports whether fn is a method of sync.WaitGroup.
func isWaitGroupMethod(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync" && n.Obj().Name() == "WaitGroup"
}

// syncUpdate refuses an atomic update (package sync/atomic), a lock or a
// sync.Once (package sync) of memory that the region's iterations share: CAPE's
// nodes are processes that share no memory, each updates its own copy,
// and copies that end equal merge into one, so that the updates of all
// but one node would be lost. Memory the iteration makes for itself (a
// variable declared in the region's body, a local of a function it calls)
// may be updated.
func (w *regionWalk) syncUpdate(call *ast.CallExpr, fn *types.Func, recv ast.Expr, name, via string) {
	path := fn.Pkg().Path()
	var op ast.Expr
	switch {
	case path == "sync/atomic" && recv != nil && slices.Contains(atomicUpdates, fn.Name()):
		op = recv
	case path == "sync/atomic" && recv == nil && len(call.Args) > 0 && slices.ContainsFunc(atomicUpdates, func(u string) bool { return strings.HasPrefix(fn.Name(), u) }):
		// AddInt64, StoreUint32, SwapPointer, ...: the first argument.
		op = call.Args[0]
	case path == "sync" && recv != nil && (lockMethods[fn.Name()] || fn.Name() == "Do" || isWaitGroupMethod(fn)):
		// sync.Once's Do too: each node would run the function once; a
		// WaitGroup's methods: each node would wait for its own goroutines.
		op = recv
	default:
		return
	}
	if v := w.t.rootVar(op); v != nil && w.ownVar(v) && valuePath(w.t.info, op) {
		return
	}
	if recv != nil {
		name = w.t.text(recv) + "." + fn.Name()
	}
	if isWaitGroupMethod(fn) && w.t.isParam(w.t.rootVar(op)) {
		w.errorf(call.Pos(), "%s in the parallel region%s uses a sync.WaitGroup handed to the function as %s, which CAPE cannot tell is the iteration's own: call Done in the function literal that starts the goroutine (go func() { defer wg.Done(); work(...) }()), with a WaitGroup made in the iteration", name, via, w.t.text(op))
		return
	}
	if isWaitGroupMethod(fn) {
		w.errorf(call.Pos(), "%s in the parallel region%s uses a sync.WaitGroup that every node has a copy of: CAPE's nodes are processes that share no memory, so a goroutine an iteration starts must end within the iteration (its writes after the region ends are lost); make the WaitGroup in the iteration and Wait there", name, via)
		return
	}
	if path == "sync" && fn.Name() == "Do" {
		w.errorf(call.Pos(), "%s in the parallel region%s uses a sync.Once that every node has a copy of: CAPE's nodes are processes that share no memory, so each node would run the function once; call it before the region", name, via)
		return
	}
	what := "updates memory that every node has a copy of"
	if path == "sync" {
		what = "takes a lock that every node has a copy of, which does not span the nodes"
	}
	w.errorf(call.Pos(), "%s in the parallel region%s %s: CAPE's nodes are processes that share no memory, so their updates would not add up; use a reduction clause (reduction(+:n)) or have each iteration write its own element", name, via, what)
}

// valuePath reports whether e reaches its root variable through selectors
// and array indices of values only (m, s.mu, a[2].n; &x at the top): no
// pointer, slice or map on the way, whose target could be any memory.
func valuePath(info *types.Info, e ast.Expr) bool {
	e = stripAddr(e)
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return true
		case *ast.SelectorExpr:
			if _, ptr := info.TypeOf(x.X).Underlying().(*types.Pointer); ptr {
				return false
			}
			e = x.X
		case *ast.IndexExpr:
			if _, arr := info.TypeOf(x.X).Underlying().(*types.Array); !arr {
				return false
			}
			e = x.X
		default:
			return false
		}
	}
}

// atomicUpdates are the methods of sync/atomic's types that write, and
// the prefixes of its functions that write their first argument.
var atomicUpdates = []string{"Add", "Store", "Swap", "CompareAndSwap", "And", "Or"}

// lockMethods are the methods of package sync's locks that take them.
var lockMethods = map[string]bool{"Lock": true, "RLock": true, "TryLock": true, "TryRLock": true}

// rootVar returns the variable that the expression e (x, &x, x.f, x[i],
// *x and their combinations) is rooted at, or nil.
func (t *translator) rootVar(e ast.Expr) *types.Var {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return t.varOf(x)
		case *ast.UnaryExpr:
			e = x.X
		default:
			if e = placeOperand(x); e == nil {
				return nil
			}
		}
	}
}

// ownVar reports whether v is each iteration's own: declared in the
// region's body, or a local (not a parameter or receiver) of a function
// the region calls; and, if it holds references (m := &mu), whether what
// they refer to is fresh too (freshVar).
func (w *regionWalk) ownVar(v *types.Var) bool {
	if refersTo(v.Type()) {
		return w.t.freshVar(v)
	}
	if w.r.body != nil && within(v.Pos(), w.r.body) {
		return true
	}
	if w.t.isParam(v) {
		return false
	}
	for fn := range w.visited {
		if d := w.t.facts.decls[fn]; d != nil && d.Body != nil && within(v.Pos(), d.Body) {
			return true
		}
	}
	return false
}

// foreignState reports, at pos, that name (fn, of another package) in the
// region changes sw's package variable.
func (w *regionWalk) foreignState(pos token.Pos, name string, fn *types.Func, sw *stateWrite, via string) {
	t := w.t
	in := ""
	if sw.fn != nil && sw.fn.FullName() != fn.Origin().FullName() {
		in = ", in " + sw.fn.Pkg().Name() + "." + funcName(sw.fn)
	}
	w.errorf(pos, "%s in the parallel region%s %s (%s%s): every node has its own copy of it, so only the node that runs the iteration would see the change; "+
		"call it before or after the region, or keep that state in the program's own variables (a reduction clause for a sum or a count)",
		name, via, sw.change(), t.foreignWhere(sw.pos), in)
}

// paramIndex is the index of the parameter that argument i of a call of
// sig gives a value to, or -2 for a variadic one (not followed).
func paramIndex(sig *types.Signature, i int) int {
	if sig.Variadic() && i >= sig.Params().Len()-1 {
		return -2
	}
	return i
}
