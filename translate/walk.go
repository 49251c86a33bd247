package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A regionWalk is the analysis of one region: it walks every body the
// region may run (the region itself, the package's functions and methods it
// calls, the function literals and methods it reaches through function
// values and interfaces) and classifies each use of a variable.
type regionWalk struct {
	t       *translator
	r       *region
	visited map[*types.Func]bool             // functions and methods walked
	lits    map[*ast.FuncLit]bool            // function literals walked on their own
	secs    map[*types.Var]map[int]bool      // sections using each shared variable
	whole   map[*types.Var]map[int]token.Pos // sections assigning it whole
	callSec int                              // the section of the region's call being followed
}

// analyzeRegion checks r's control flow and its variables: what must move
// to the arena, and what breaks Bernstein's conditions.
func (t *translator) analyzeRegion(r *region) {
	if r.body == nil || (r.loop == nil && r.dir.kind == dirFor) {
		return
	}
	t.checkControl(r)
	w := &regionWalk{
		t: t, r: r,
		visited: map[*types.Func]bool{},
		lits:    map[*ast.FuncLit]bool{},
		secs:    map[*types.Var]map[int]bool{},
		whole:   map[*types.Var]map[int]token.Pos{},
	}
	w.walk(r.body, func(v *types.Var) bool { return within(v.Pos(), r.stmt) }, false)
	// Bernstein for sections: a variable assigned whole in one section may
	// not be used by another.
	for v, ws := range w.whole {
		for ws1, pos := range ws {
			for s2 := range w.secs[v] {
				if s2 != ws1 {
					t.errorf(pos, "%s is assigned in section %d and used in section %d: the sections depend on each other; list it in shared if that is intended", v.Name(), ws1, s2)
					break
				}
			}
		}
	}
}

// runsIn reports whether v is declared in code that the region runs: the
// region itself or a function it calls, so that each run has its own.
func (w *regionWalk) runsIn(v *types.Var) bool {
	if within(v.Pos(), w.r.stmt) {
		return true
	}
	for fn := range w.visited {
		if d := w.t.decls[fn]; d != nil && within(v.Pos(), d) {
			return true
		}
	}
	return false
}

// enter walks a body that the region may run, once.
func (w *regionWalk) enter(c callTarget) {
	t := w.t
	if c.decl != nil {
		fn, ok := t.info.Defs[c.decl.Name].(*types.Func)
		if !ok || w.visited[fn] || c.decl.Body == nil {
			return
		}
		w.visited[fn] = true
		// A called function's parameters and locals are its own.
		w.walk(c.decl.Body, func(v *types.Var) bool { return v.Parent() != v.Pkg().Scope() }, true)
		return
	}
	if within(c.lit.Pos(), w.r.body) {
		return // walked where it stands, with the region
	}
	if d, ok := t.enclosing(c.lit, func(n ast.Node) bool { _, ok := n.(*ast.FuncDecl); return ok }).(*ast.FuncDecl); ok && !c.outer {
		if fn, ok := t.info.Defs[d.Name].(*types.Func); ok && w.visited[fn] {
			return // made by a function the region calls, and walked with it
		}
	}
	if w.lits[c.lit] {
		return
	}
	w.lits[c.lit] = true
	// The variables the literal captures are shared by every iteration.
	w.walk(c.lit.Body, func(v *types.Var) bool { return within(v.Pos(), c.lit) }, true)
}

// call walks what call may run, or reports that it cannot be known.
func (w *regionWalk) call(call *ast.CallExpr, via string) {
	t := w.t
	targets, bad := t.callees(call, w.runsIn)
	if bad != nil {
		t.errorf(call.Pos(), "cannot tell which function %s runs in the parallel region%s: its function value comes from %s at %s; call a function, method or function literal of this package whose value CAPE can follow", t.text(call.Fun), via, bad.what, t.where(bad.pos))
	}
	for _, c := range targets {
		w.enter(c)
	}
	w.externalArgs(call, via)
}

// walk classifies every use in root of a variable declared outside it;
// isLocal reports the variables that each run of root has for itself.
func (w *regionWalk) walk(root ast.Node, isLocal func(*types.Var) bool, callee bool) {
	t, r := w.t, w.r
	via := ""
	if callee {
		via = " (called from the parallel region at " + t.where(r.dir.pos) + ")"
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if !callee {
				w.callSec = w.section(call.Pos())
			}
			w.call(call, via)
		}
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := t.info.Uses[id].(*types.Var)
		if !ok || v.IsField() {
			return true
		}
		w.use(id, v, isLocal(v), callee, via)
		return true
	})
}

// section returns the index of the section of the region that holds pos,
// or -1.
func (w *regionWalk) section(pos token.Pos) int {
	for i, s := range w.r.sections {
		if within(pos, s) {
			return i
		}
	}
	return -1
}

// use classifies one use of v.
func (w *regionWalk) use(id *ast.Ident, v *types.Var, isLocal, callee bool, via string) {
	t, r := w.t, w.r
	if r.loop != nil && (v == r.loop.v || v == r.loop.valueVar) && !callee {
		if a := t.access(id); a.write && v == r.loop.v {
			t.errorf(id.Pos(), "the loop variable %s is modified in the parallel loop", id.Name)
		}
		return
	}
	a := t.access(id)
	clause := r.clauseOf[v]
	if clause != "" && !isLocal && callee {
		// The region's copy is a new variable in the region's body; a
		// function called from it still uses the variable itself.
		t.errorf(id.Pos(), "%s is in the %s clause of the parallel region at %s, but this code, called from the region, uses the variable itself, not the region's copy; pass it as an argument, or do not list it", id.Name, clause, t.where(r.dir.pos))
		return
	}
	if clause != "" && !isLocal {
		if a.write && a.loc == locRef && clause == "firstprivate" {
			t.need(v, id.Pos())
		}
		return
	}
	sec := w.section(id.Pos())
	if callee {
		sec = w.callSec // code called from that section
	}
	if !isLocal && r.dir.kind == dirSections && sec >= 0 {
		if w.secs[v] == nil {
			w.secs[v] = map[int]bool{}
		}
		w.secs[v][sec] = true
	}
	if !a.write {
		return
	}
	switch a.loc {
	case locMap:
		t.errorf(id.Pos(), "map %s is written in a parallel region%s: maps live on the Go heap and cannot be shared; use a slice", id.Name, via)
	case locChan:
		if !isLocal || callee && t.isParam(v) {
			t.errorf(id.Pos(), "channel %s is sent to, received from or closed in a parallel region%s: each node would see only its own share of the operations; collect the values in a slice indexed by iteration", id.Name, via)
		}
	case locUnknown:
		t.errorf(id.Pos(), "cannot tell whether the memory written through %s is in the arena%s: write through a slice variable allocated with make", t.text(a.expr), via)
	case locRef:
		if a.appendTo && !isLocal {
			t.errorf(id.Pos(), "append to shared slice %s in a parallel region%s: it may reallocate outside the arena; size it with make before the region", id.Name, via)
			return
		}
		if clause == "private" {
			return
		}
		t.need(v, id.Pos())
	case locOwn:
		if isLocal {
			return
		}
		if v.Pkg() != t.p.types {
			t.errorf(id.Pos(), "%s belongs to package %s and cannot be written in a parallel region%s", id.Name, v.Pkg().Name(), via)
			return
		}
		if !pointerFree(v.Type()) {
			t.errorf(id.Pos(), "%s (%s) is assigned in a parallel region%s, but a %s cannot live in the arena; assign elements of a slice, or plain numbers", id.Name, v.Type(), via, kindName(v.Type()))
			return
		}
		if !a.indexed && !r.shared[v] {
			if r.dir.kind == dirFor {
				t.errorf(id.Pos(), "%s is assigned in every iteration of the parallel loop%s (a loop-carried dependence): list it in private, firstprivate, lastprivate or reduction, or in shared if every iteration stores the same value", id.Name, via)
				return
			}
			if w.whole[v] == nil {
				w.whole[v] = map[int]token.Pos{}
			}
			if _, ok := w.whole[v][sec]; !ok {
				w.whole[v][sec] = id.Pos()
			}
		}
		t.box(v, id.Pos())
	}
}

// isParam reports whether v is a parameter or a receiver.
func (t *translator) isParam(v *types.Var) bool {
	for _, s := range t.sources[v] {
		if s.isParam || s.recv {
			return true
		}
	}
	return false
}
