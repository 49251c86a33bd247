package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// findLast returns the regions of main that are statically the program's
// last: after them (in main, in any function main calls, in deferred calls)
// no other region can run. A slave leaves the job after such a region
// (Region.EndLast), so the sequential code that follows runs once.
func (t *translator) findLast() map[*region]bool {
	last := map[*region]bool{}
	mainDecl := t.mainDecl()
	if mainDecl == nil || hasLabeledBranch(mainDecl.Body) {
		return last
	}
	rc := t.regionReach()
	for _, r := range t.regions {
		if r.fn != ast.Node(mainDecl) || r.outer != nil {
			continue
		}
		last[r] = t.isLast(r, mainDecl, rc)
	}
	return last
}

// everyRegionLast reports whether every region of the program is its last
// (findLast): then the slaves leave after the first one that runs.
func (t *emitter) everyRegionLast() bool {
	for _, r := range t.regions {
		if !t.last[r] {
			return false
		}
	}
	return len(t.regions) > 0
}

// mainDecl returns the declaration of the package's func main with a
// body, or nil (not a main package, or no body).
func (t *translator) mainDecl() *ast.FuncDecl {
	if t.p.name != "main" {
		return nil
	}
	mainFn, _ := t.p.types.Scope().Lookup("main").(*types.Func)
	if d := t.facts.decls[mainFn]; d != nil && d.Body != nil {
		return d
	}
	return nil
}

// A reach tells which calls may run a region (regionReach), or, with
// another does, which may write to standard output (printReach).
type reach struct {
	has     map[*types.Func]bool // functions that may run a region, transitively through static calls
	dynamic bool                 // a region may be reached through a function value or interface
	// hands memoizes handsRegion's question of a named type: whether one
	// of its methods (of it or its pointer) may run a region.
	hands map[*types.Named]bool
	// does reports whether n itself, not through a call of the
	// program's functions, does what the reach follows: is a region
	// statement, or writes to standard output.
	does func(n ast.Node) bool
	// goes: regionSiteIn counts what the go statements of a function
	// literal start as the literal's own (a goroutine it starts may still
	// write once it has returned).
	goes bool
}

// regionReach finds the functions that may run a region, transitively
// through static calls, and whether a region may be reached through a
// function value or an interface; made once (t.reach).
func (t *translator) regionReach() reach {
	if t.reach == nil {
		rc := t.findReach()
		t.reach = &rc
	}
	return *t.reach
}

// findReach is regionReach's work.
func (t *translator) findReach() reach {
	rc := reach{has: map[*types.Func]bool{}, hands: map[*types.Named]bool{}, does: func(n ast.Node) bool {
		s, ok := n.(ast.Stmt)
		return ok && t.regionAt[s] != nil
	}}
	for _, r := range t.regions {
		fd, _ := r.fn.(*ast.FuncDecl)
		if fd == nil {
			rc.dynamic = true
			fd, _ = t.enclosing(r.stmt, func(n ast.Node) bool { _, ok := n.(*ast.FuncDecl); return ok }).(*ast.FuncDecl)
		}
		if fn, ok := t.info.Defs[fd.Name].(*types.Func); ok {
			rc.has[fn] = true
		}
	}
	t.closeReach(&rc)
	return rc
}

// closeReach adds to rc.has the functions that call one of it statically,
// transitively, and sets rc.dynamic where one of them is used as a value
// or is a method.
func (t *translator) closeReach(rc *reach) {
	callees := t.staticCallees()
	for changed := true; changed; {
		changed = false
		for fn, cs := range callees {
			for _, c := range cs {
				if rc.has[c] && !rc.has[fn] {
					rc.has[fn], changed = true, true
				}
			}
		}
	}
	for fn := range rc.has {
		if t.facts.valueUse[fn] || fn.Type().(*types.Signature).Recv() != nil {
			rc.dynamic = true
		}
	}
}

// staticCallees returns the functions each function of the package calls
// statically.
func (t *translator) staticCallees() map[*types.Func][]*types.Func {
	callees := map[*types.Func][]*types.Func{}
	for fn, d := range t.facts.decls {
		if d.Body == nil {
			continue
		}
		ast.Inspect(d.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if c := t.staticCallee(call); c != nil {
					callees[fn] = append(callees[fn], c)
				}
			}
			return true
		})
	}
	return callees
}

// mayRunRegion reports whether call may run a region: a static call of a
// function in rc.has, or, when a region is reachable dynamically, any call
// that is not a conversion, a builtin, a known function or a function of
// another package.
func (t *translator) mayRunRegion(rc reach, call *ast.CallExpr) bool {
	if rc.does(call) {
		return true
	}
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		return false
	}
	if c := t.staticCallee(call); c != nil {
		return rc.has[c]
	}
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.FuncLit:
		// Called where it is made (defer func() { … }()): what its body
		// may run.
		return t.regionSiteIn(rc, f.Body) != nil || rc.dynamic
	case *ast.Ident:
		switch t.info.Uses[f].(type) {
		case *types.Builtin, *types.Func:
			return false
		}
	case *ast.SelectorExpr:
		if fn, ok := t.info.Uses[f.Sel].(*types.Func); ok && fn.Pkg() != t.p.types {
			if sel := t.info.Selections[f]; sel == nil {
				// A package-level function of another package: it may
				// call back into the program through what it is given
				// (sort.Sort(v) calls v's Less).
				return t.handsRegion(rc, call)
			} else if _, iface := sel.Recv().Underlying().(*types.Interface); !iface {
				return t.handsRegion(rc, call)
			}
		}
	}
	return rc.dynamic
}

// handsRegion reports whether call hands another package something through
// which it may run a region: a function value, where a region is reachable
// through one, or a value whose methods include one that may run a region.
func (t *translator) handsRegion(rc reach, call *ast.CallExpr) bool {
	for _, arg := range call.Args {
		tv, ok := t.info.Types[arg]
		if !ok || tv.Type == nil {
			continue
		}
		typ := tv.Type
		if _, fn := typ.Underlying().(*types.Signature); fn && rc.dynamic {
			return true
		}
		if p, ok := typ.(*types.Pointer); ok {
			typ = p.Elem()
		}
		if named, ok := typ.(*types.Named); ok && rc.methodRuns(named) {
			return true
		}
	}
	return false
}

// methodRuns reports whether a method of named (or of its pointer) may
// run a region.
func (rc reach) methodRuns(named *types.Named) bool {
	runs, known := rc.hands[named]
	if !known {
		ms := types.NewMethodSet(types.NewPointer(named))
		for i := range ms.Len() {
			if m, ok := ms.At(i).Obj().(*types.Func); ok && rc.has[m] {
				runs = true
			}
		}
		rc.hands[named] = runs
	}
	return runs
}

// runsHere reports whether n is a region statement or a call that may run
// a region (what rc follows).
func (t *translator) runsHere(rc reach, n ast.Node) bool {
	switch n := n.(type) {
	case *ast.CallExpr:
		return t.mayRunRegion(rc, n)
	case nil:
		return false
	}
	return rc.does(n)
}

// hasLabeledBranch reports whether body has a goto, or a break or continue
// with a label.
func hasLabeledBranch(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Label != nil {
			found = true
		}
		return true
	})
	return found
}

// isLast reports whether the region r, directly in main, is the program's
// last: not in a loop, and followed by no call or region (and preceded by
// no deferred call) that may run another.
func (t *translator) isLast(r *region, mainDecl *ast.FuncDecl, rc reach) bool {
	if loop, _ := t.outermostLoop(r.stmt, mainDecl); loop != nil {
		return false
	}
	return t.noRegionAfter(r.stmt.End(), mainDecl, rc)
}

// outermostLoop returns the outermost for or range statement of main that
// holds n, or nil; ok is false where n is in a function literal.
func (t *translator) outermostLoop(n ast.Node, mainDecl *ast.FuncDecl) (loop ast.Stmt, ok bool) {
	for p := t.parent[n]; p != nil && p != ast.Node(mainDecl); p = t.parent[p] {
		switch p := p.(type) {
		case *ast.ForStmt:
			loop = p
		case *ast.RangeStmt:
			loop = p
		case *ast.FuncLit:
			return nil, false
		}
	}
	return loop, true
}

// noRegionAfter reports whether no region can run once main has reached
// end: no region statement or call that may run one after end, and no
// deferred call that may.
func (t *translator) noRegionAfter(end token.Pos, mainDecl *ast.FuncDecl, rc reach) bool {
	none := true
	ast.Inspect(mainDecl.Body, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok && t.mayRunRegion(rc, d.Call) || n != nil && n.Pos() >= end && t.runsHere(rc, n) {
			none = false
		}
		return none
	})
	return none
}

// findLeaving returns the statement of main after which the slaves leave
// the job (cape.RegionsDone), or nil. It follows main's last place that
// may run a region (a region, or a call that may run one): where that
// place is in a loop of main, the outermost such loop; otherwise the
// statement of main's body that holds it, or the statement that waits for
// the goroutine that holds it (leavingStmt). No region can run after that
// statement (noRegionAfter), it is in no loop and main has no goto or
// labelled branch, so once it has ended no region runs: the sequential
// code after it, usually the output of the whole result, runs on the
// master only, and no slave fetches the pages only that code reads. A
// region of main's body after which no region runs needs none: the
// slaves leave after it (findLast).
func (t *translator) findLeaving() ast.Stmt {
	mainDecl := t.mainDecl()
	if mainDecl == nil || hasLabeledBranch(mainDecl.Body) {
		return nil
	}
	rc := t.regionReach()
	site := t.lastSite(mainDecl, rc)
	if site == nil {
		return nil
	}
	var after ast.Stmt
	if loop, ok := t.outermostLoop(site, mainDecl); ok && loop != nil {
		if t.regionAt[loop] != nil || !t.inStmtList(loop) {
			return nil
		}
		after = loop
	} else {
		after = t.leavingStmt(site, mainDecl)
	}
	if after == nil || !t.noRegionAfter(after.End(), mainDecl, rc) {
		return nil
	}
	return after
}

// lastSite returns the last place of main, in the order of the source,
// that may run a region (a region, or a call that may run one), or nil.
func (t *translator) lastSite(mainDecl *ast.FuncDecl, rc reach) ast.Node {
	var site ast.Node
	ast.Inspect(mainDecl.Body, func(n ast.Node) bool {
		if n != nil && (site == nil || n.Pos() > site.Pos()) && t.runsHere(rc, n) {
			site = n
		}
		return true
	})
	return site
}

// inStmtList reports whether s is a statement of a block or of a case or
// select clause, after which a statement can be inserted.
func (t *translator) inStmtList(s ast.Stmt) bool { return t.stmtList(s) != nil }

// stmtList returns the statement list s is in (a block's, or a case or
// select clause's), or nil.
func (t *translator) stmtList(s ast.Stmt) []ast.Stmt {
	switch p := t.parent[s].(type) {
	case *ast.BlockStmt:
		return p.List
	case *ast.CaseClause:
		return p.Body
	case *ast.CommClause:
		return p.Body
	}
	return nil
}
