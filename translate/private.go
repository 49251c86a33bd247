package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Private memory: what stays where Go puts it.
//
// Nothing can be allocated in the arena while a region runs (the runtime
// freezes it), so every cape.New, cape.Make and cape.Free that the
// translator inserts must run outside every region. Memory that a region's
// write reaches (need, needOwn) and that is made by code a region may run
// is either the iteration's own, and stays where it is, or cannot be
// placed, and is refused at the place it is made.
//
// It is the iteration's own when the trace from the write back to where
// the memory is made went only down the calls active at the write: through
// local assignments, and from parameters and receivers to the arguments of
// their calls (the trace is not escaped then), and either
//
//   - it is made inside a region's statement: the iteration (or section)
//     that makes it is the one that writes it, because a pointer cannot
//     leave the iteration but through memory (pointers cannot be assigned
//     whole to shared variables, which are numbers in the arena), which the
//     trace of stores refuses (a stored trace); or
//   - it is made by a function that cannot start a region: the function's
//     call is active when the region's code writes the memory, and it cannot
//     have started the region, so the call itself runs inside the region.
//
// Memory reached through a function's result, a store into memory, a
// package-level variable or a variable captured by a function literal
// (an escaped trace) may have been made anywhere: made by code a region
// may run, it is refused.

// regionCode is findRegionCode's result: the bodies of the functions and
// function literals that some region may run, and the functions that may
// start a region (computed on the first question, findStarters).
type regionCode struct {
	bodies []ast.Node
	starts map[ast.Node]bool
}

// findRegionCode returns the code that some region may run (the region's
// walk of its calls), found before the regions are analyzed, so that the
// analysis knows which allocations would run inside a region. It returns
// the walk's findings too, which it does not report.
func (t *translator) findRegionCode() (*regionCode, ErrorList) {
	code := &regionCode{}
	var found ErrorList
	for _, r := range t.regions {
		if r.body == nil || (r.loop == nil && r.dir.kind == dirFor) {
			continue
		}
		w := t.newRegionWalk(r)
		w.found = &found
		w.walk = func(root ast.Node, _ func(*types.Var) bool, callee bool) {
			ast.Inspect(root, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					w.call(call, callee)
				}
				return true
			})
		}
		w.walk(r.body, nil, false)
		for fn := range w.visited {
			if d := t.facts.decls[fn]; d != nil {
				code.bodies = append(code.bodies, d)
			}
		}
		for lit := range w.lits {
			code.bodies = append(code.bodies, lit)
		}
	}
	return code, found
}

// mayRunInRegion reports whether n lies in code that a region may run: a
// region's statement, or a function or function literal that a region may
// call.
func (t *translator) mayRunInRegion(code *regionCode, n ast.Node) bool {
	if n == nil {
		return false
	}
	if t.inRegion(n.Pos()) {
		return true
	}
	for _, c := range code.bodies {
		if within(n.Pos(), c) {
			return true
		}
	}
	return false
}

// keepPrivate decides memory made at site (a make, new, &T{...} or a
// variable's declaration) that the region's write at why reaches, in the
// tracing mode tr: it returns true when the memory stays where Go puts
// it (the iteration's own, or refused here), false when it may move to the
// arena (site runs outside every region).
func (t *analyzer) keepPrivate(tr trace, site ast.Node, name string, why token.Pos) bool {
	if t.inRegion(site.Pos()) {
		if tr.stored {
			t.originErrorf(tr, site.Pos(), "%s is written through in the parallel region at %s and is stored in shared memory, but it is made inside a parallel region, where nothing can be placed in the arena; make it before the region", name, t.where(why))
		}
		return true // a private buffer of one iteration or section
	}
	if !t.mayRunInRegion(t.code, site) {
		return false
	}
	fn := t.enclosing(site, isFunc)
	if !tr.escaped && !tr.stored && fn != nil && !t.mayStartRegion(t.code, fn) {
		return true // made by the call that the region's code runs in
	}
	t.originErrorf(tr, site.Pos(), "%s is written through in the parallel region at %s, but its memory is made here, in code that also runs inside a parallel region, where nothing can be placed in the arena, and CAPE cannot prove it private to that code (it %s): make it before the region and pass it down", name, t.where(why), t.escapeReason(tr, fn))
	return true
}

// escapeReason says why memory made in fn is not provably private.
func (t *analyzer) escapeReason(tr trace, fn ast.Node) string {
	switch {
	case tr.stored:
		return "is stored in memory that may keep it after the call"
	case tr.escaped:
		return "reaches the write through a function result, a method or interface value, a store into memory, a package-level variable or a captured variable"
	case fn == nil:
		return "is not made in a function"
	}
	return "is made by a function that may start a parallel region itself"
}

// needVarAt is need for the variable v used at id: a package-level
// variable, or a variable captured from another function, may hold memory
// made anywhere.
func (t *analyzer) needVarAt(tr trace, v *types.Var, id *ast.Ident, why token.Pos) {
	if v.Pkg() == t.p.types && (v.Parent() == t.p.types.Scope() || t.funcOf(id) != t.funcOf(v)) {
		t.need(tr.escape(), v, why)
		return
	}
	t.need(tr, v, why)
}

// mayStartRegion reports whether a call of fn (a function declaration or
// literal of the package) may start a parallel region: its body holds a
// region, or a call whose code may, or one CAPE cannot bound.
func (t *translator) mayStartRegion(code *regionCode, fn ast.Node) bool {
	if code.starts == nil {
		code.starts = t.findStarters()
	}
	return code.starts[fn]
}

// findStarters computes mayStartRegion for every function and function
// literal of the package, as a fixed point over the calls each may make.
func (t *translator) findStarters() map[ast.Node]bool {
	starts := map[ast.Node]bool{}
	callers := map[ast.Node][]ast.Node{}
	var work []ast.Node
	mark := func(fn ast.Node) {
		if !starts[fn] {
			starts[fn] = true
			work = append(work, fn)
		}
	}
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if !isFunc(n) {
				return true
			}
			targets, unknown := t.bodyCalls(n)
			if unknown {
				mark(n)
			}
			for _, c := range targets {
				callers[c] = append(callers[c], n)
			}
			// A function holds what its literals hold: a literal's region
			// starts where the literal is called, but the literal is made
			// by its function.
			if lit, ok := n.(*ast.FuncLit); ok {
				if outer := t.enclosing(lit, isFunc); outer != nil {
					callers[lit] = append(callers[lit], outer)
				}
			}
			return true
		})
	}
	for _, r := range t.regions {
		if fn := t.enclosing(r.stmt, isFunc); fn != nil {
			mark(fn)
		}
	}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range callers[fn] {
			mark(c)
		}
	}
	return starts
}

// bodyCalls returns the bodies that the calls in fn's body (not in its
// function literals) may run, and whether some call's code cannot be
// bounded.
func (t *translator) bodyCalls(fn ast.Node) (targets []ast.Node, unknown bool) {
	var body *ast.BlockStmt
	switch f := fn.(type) {
	case *ast.FuncDecl:
		body = f.Body
	case *ast.FuncLit:
		body = f.Body
	}
	if body == nil {
		return nil, false
	}
	none := func(*types.Var) bool { return false }
	add := func(cs []callTarget) {
		for _, c := range cs {
			if c.decl != nil {
				targets = append(targets, c.decl)
			} else {
				targets = append(targets, c.lit)
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			cs, bad := t.callees(n, none)
			add(cs)
			unknown = unknown || bad != nil
			if fn, _ := t.externalCallee(n); fn != nil {
				u := t.externalCallTargets(n, add)
				unknown = unknown || u
			}
		}
		return true
	})
	return targets, unknown
}

// externalCallTargets adds the bodies that another package's function may
// call back: the function values it is handed, and the methods of this
// package's types of the values it is handed. It reports whether some
// function value cannot be bounded.
func (t *translator) externalCallTargets(call *ast.CallExpr, add func([]callTarget)) (unknown bool) {
	none := func(*types.Var) bool { return false }
	for _, a := range call.Args {
		at := t.info.TypeOf(a)
		if at == nil {
			continue
		}
		if _, isFunc := at.Underlying().(*types.Signature); isFunc {
			cs, bad := t.funcValues(a, none)
			add(cs)
			unknown = unknown || bad != nil
			continue
		}
		dyn := []types.Type{at}
		if iface, ok := at.Underlying().(*types.Interface); ok {
			dyn = t.implementations(iface)
		}
		for _, d := range dyn {
			for _, typ := range []types.Type{d, types.NewPointer(d)} {
				ms := types.NewMethodSet(typ)
				for i := range ms.Len() {
					if fn, ok := ms.At(i).Obj().(*types.Func); ok && fn.Pkg() == t.p.types {
						if decl := t.facts.decls[fn.Origin()]; decl != nil {
							add([]callTarget{{decl: decl}})
						}
					}
				}
			}
		}
	}
	return unknown
}

// checkAllocSites refuses, at its position, every arena allocation or free
// that the translation would insert in code a region may run, where the
// runtime refuses it: the analysis keeps such memory private or refuses it
// where it is made, so this is the last guard against generated code that
// would fail at run time.
func (t *translator) checkAllocSites(code *regionCode, place *placement, frees *freePlan) {
	refuse := func(n ast.Node, what string) {
		if t.mayRunInRegion(code, n) {
			t.errorf(n.Pos(), "CAPE would %s here, in code that runs inside a parallel region, where the runtime refuses it: make the memory before the region", what)
		}
	}
	for v, d := range place.decls {
		if d.stmt != nil {
			refuse(d.stmt, "place "+v.Name()+" in the arena")
		}
	}
	for call, name := range place.makes {
		refuse(call, "allocate "+name+" in the arena")
	}
	for x, name := range place.lits {
		refuse(x, "allocate "+name+" in the arena")
	}
	for st := range frees.at {
		refuse(st, "free arena memory")
	}
	for blk := range frees.atEnd {
		refuse(blk, "free arena memory")
	}
}
