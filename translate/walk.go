package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// A regionWalk follows the calls of one region's analysis (analyzeRegion)
// to every body the region may run: the package's functions and methods it
// calls, and the function literals and methods it reaches through function
// values and interfaces (see callees). Each body is walked once.
type regionWalk struct {
	t       *translator
	r       *region
	visited map[*types.Func]bool  // functions and methods walked
	lits    map[*ast.FuncLit]bool // function literals walked on their own
	callSec int                   // the section of the region's call being followed, or -1
	// walk is analyzeRegion's walk: it classifies the uses in root, local
	// telling the variables that each run of root has for itself.
	walk func(root ast.Node, local func(*types.Var) bool, callee bool)
	// found, when set, receives the walk's diagnostics instead of the
	// translation: its owner decides on them.
	found *ErrorList
}

// errorf reports a problem of the walk, or hands it to w.found.
func (w *regionWalk) errorf(pos token.Pos, format string, args ...any) {
	if w.found != nil {
		*w.found = append(*w.found, Diagnostic{Pos: w.t.fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
		return
	}
	w.t.errorf(pos, format, args...)
}

func (t *translator) newRegionWalk(r *region) *regionWalk {
	return &regionWalk{t: t, r: r, visited: map[*types.Func]bool{}, lits: map[*ast.FuncLit]bool{}, callSec: -1}
}

// runsIn reports whether v is declared in code that the region runs: the
// region itself or a function it calls, so that each run has its own.
func (w *regionWalk) runsIn(v *types.Var) bool {
	if within(v.Pos(), w.r.stmt) {
		return true
	}
	for fn := range w.visited {
		if d := w.t.facts.decls[fn]; d != nil && within(v.Pos(), d) {
			return true
		}
	}
	return false
}

// call walks what call, found in the region (or in code it calls when
// callee), may run, or reports that it cannot be known.
func (w *regionWalk) call(call *ast.CallExpr, callee bool) {
	t := w.t
	if !callee {
		w.callSec = -1
		for i, s := range w.r.sections {
			if within(call.Pos(), s) {
				w.callSec = i
			}
		}
	}
	via := w.via(callee)
	if why := t.heldHashWrite(call, w.runsIn); why != "" {
		w.errorf(call.Pos(), "%s%s", why, via)
	}
	targets, bad := t.callees(call, w.runsIn)
	if bad != nil && bad.state != nil {
		w.foreignState(call.Pos(), bad.what+" (through "+t.text(call.Fun)+")", bad.fn, bad.state, via)
	} else if bad != nil {
		w.errorf(call.Pos(), "cannot tell which function %s runs in the parallel region%s: its function value comes from %s at %s; call a function, method or function literal of this package whose value CAPE can follow", t.text(call.Fun), via, bad.what, t.where(bad.pos))
	}
	for _, c := range targets {
		w.enter(c)
	}
	w.externalArgs(call, via)
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

// isParam reports whether v is a parameter or a receiver.
func (t *translator) isParam(v *types.Var) bool {
	for _, s := range t.facts.sources[v] {
		if s.isParam || s.recv {
			return true
		}
	}
	return false
}

// via is what a diagnostic adds when it is about code the region calls
// (callee), rather than the region's own.
func (w *regionWalk) via(callee bool) string {
	if !callee {
		return ""
	}
	return " (called from the parallel region at " + w.t.where(w.r.dir.pos) + ")"
}
