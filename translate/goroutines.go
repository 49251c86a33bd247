package translate

import (
	"go/ast"
	"go/types"
	"slices"
)

// regionsInGoroutines refuses a go statement whose goroutine may run a
// parallel region while another region may run: the nodes run the
// regions one at a time and in the same order (each is a collective step
// of the job), which two streams of regions, one of them a goroutine's,
// break: the job stopped on a conflict, or hung. A goroutine is taken to
// run concurrently with another region where more than one go statement
// may run one, where its go statement is in a loop, or where main itself
// may run one (a region, or a call that may, outside go statements). A
// single goroutine running the program's regions while main waits for it
// is accepted, and so is one its starter waits for before anything else
// that may run a region (joinedAfter): it runs as a call would. It
// returns the go statements that may run a region and are accepted.
func (t *translator) regionsInGoroutines() []goSite {
	if len(t.regions) == 0 {
		return nil
	}
	rc := t.regionReach()
	var all []goSite // every go statement that may run a region
	free := 0        // those not joined at once
	joined := map[*ast.GoStmt]bool{}
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				if at := t.runsRegion(rc, g.Call); at != nil {
					all = append(all, goSite{g, at})
					if joined[g] = t.joinedAfter(rc, g); !joined[g] {
						free++
					}
				}
			}
			return true
		})
	}
	if free == 0 {
		return all
	}
	concurrent := len(all) > 1 || t.mainRunsRegion(rc)
	var accepted []goSite
	for _, s := range all {
		if !joined[s.g] && (concurrent || t.inLoop(s.g)) {
			t.errorf(s.g.Pos(), "this goroutine may run a parallel region (%s) while another region runs: the nodes run the regions one at a time and in the same order, which concurrent regions do not ensure; call it without go", t.where(s.at.Pos()))
			continue
		}
		accepted = append(accepted, s)
	}
	return accepted
}

// A goSite is a go statement whose goroutine may run a region, and the
// region, or the call through which it may (runsRegion).
type goSite struct {
	g  *ast.GoStmt
	at ast.Node
}

// runsRegion returns the region statement or the call through which call,
// started by a go statement, may run a region, or nil.
func (t *translator) runsRegion(rc reach, call *ast.CallExpr) ast.Node {
	lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit)
	if !ok {
		if t.mayRunRegion(rc, call) {
			return call
		}
		return nil
	}
	return t.regionSiteIn(rc, lit.Body)
}

// regionSiteIn returns the first region statement of n, or call that may
// run a region, leaving out go statements; nil if none.
func (t *translator) regionSiteIn(rc reach, n ast.Node) ast.Node {
	var at ast.Node
	ast.Inspect(n, func(n ast.Node) bool {
		if at != nil {
			return false
		}
		if _, ok := n.(*ast.GoStmt); ok && !rc.goes {
			return false
		}
		if t.runsHere(rc, n) {
			at = n
		}
		return at == nil
	})
	return at
}

// mainRunsRegion reports whether main may run a region itself: a region,
// or a call that may run one, outside its go statements.
func (t *translator) mainRunsRegion(rc reach) bool {
	d := t.mainDecl()
	return d == nil || t.regionSiteIn(rc, d.Body) != nil
}

// inLoop reports whether n is in a for or range statement of its function.
func (t *translator) inLoop(n ast.Node) bool {
	for p := t.parent[n]; p != nil; p = t.parent[p] {
		switch p.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return true
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		}
	}
	return false
}

// joinedAfter reports whether the goroutine g starts is waited for before
// anything else may run a region: g runs a function literal that calls
// wg.Done() on a sync.WaitGroup variable wg once the rest of it has run
// (deferred, or as its last statement: endSignal), and a later statement
// of the list g is in calls wg.Wait(), with no statement between that may
// run a region or calls wg.Done() (go func() { defer wg.Done(); … }();
// wg.Wait()), or receives from a channel the literal's end signals
// (close(done) as its last statement, then <-done). A wg.Done() before the
// goroutine's regions would let the wait end while they run, and so would
// a deferred call that may run one (deferred before defer wg.Done(), it
// runs after it).
func (t *translator) joinedAfter(rc reach, g *ast.GoStmt) bool {
	return t.joinedBefore(rc, nil, g)
}

// joinedBefore is joinedAfter, where <-ch (v := <-ch) waits for the
// goroutine too, where the function literal's end signals ch (endSignal),
// the function g is in uses ch for nothing else (onlyJoinUses) and no
// deferred call of the literal may run a region; where pr (printReach's)
// is given, for a goroutine that may write to standard output, none of
// its deferred calls that may write runs after its signal (writesAfter).
func (t *translator) joinedBefore(rc reach, pr *reach, g *ast.GoStmt) bool {
	lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit)
	if !ok {
		return false
	}
	list := t.stmtList(g)
	i := slices.Index(list, ast.Stmt(g))
	if i < 0 {
		return false
	}
	for j, s := range list[i+1:] {
		if wg := t.waitGroupCall(s, "Wait"); wg != nil {
			return t.endSignal(lit.Body, wg) && !t.callsDone(list[i+1:i+1+j], wg) && !t.defersRegion(rc, lit.Body) &&
				(pr == nil || !t.writesAfter(*pr, lit.Body, wg))
		}
		if ch := t.receivedFrom(s); ch != nil && t.endSignal(lit.Body, ch) && t.onlyJoinUses(funcBody(t.funcOf(g)), ch, lit, s) {
			return !t.defersRegion(rc, lit.Body) && (pr == nil || !t.writesAfter(*pr, lit.Body, ch))
		}
		if t.regionSiteIn(rc, s) != nil || t.startsRegions(rc, s) {
			return false
		}
	}
	return false
}

// writesAfter reports whether a deferred call of body (not of its
// function literals) that may write to standard output (pr) runs after
// body signals obj (signalStmt): deferred before a deferred signal, or
// at all where the signal is body's last statement.
func (t *translator) writesAfter(pr reach, body *ast.BlockStmt, obj types.Object) bool {
	signal := t.signalStmt(body, obj)
	_, deferred := signal.(*ast.DeferStmt)
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			found = found || (!deferred || n.Pos() < signal.Pos()) && t.mayRunRegion(pr, n.Call)
		}
		return !found
	})
	return found
}

// waitGroupCall returns the variable wg where s is the statement
// wg.<name>() (or defer wg.<name>()) on a sync.WaitGroup, else nil.
func (t *translator) waitGroupCall(s ast.Stmt, name string) types.Object {
	var call *ast.CallExpr
	switch s := s.(type) {
	case *ast.ExprStmt:
		call, _ = s.X.(*ast.CallExpr)
	case *ast.DeferStmt:
		call = s.Call
	}
	if call == nil {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return nil
	}
	fn, ok := t.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "sync" {
		return nil
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil
	}
	return t.info.Uses[id]
}

// callsDone reports whether one of list calls wg.Done(), anywhere in it.
func (t *translator) callsDone(list []ast.Stmt, wg types.Object) bool {
	found := false
	for _, s := range list {
		ast.Inspect(s, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && t.waitGroupCall(&ast.ExprStmt{X: c}, "Done") == wg {
				found = true
			}
			return !found
		})
	}
	return found
}

// defersRegion reports whether body holds a deferred call that may run a
// region.
func (t *translator) defersRegion(rc reach, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok && t.mayRunRegion(rc, d.Call) {
			found = true
		}
		return !found
	})
	return found
}

// startsRegions reports whether n holds a go statement whose goroutine may
// run a region.
func (t *translator) startsRegions(rc reach, n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok && t.runsRegion(rc, g.Call) != nil {
			found = true
		}
		return !found
	})
	return found
}

// printsInGoroutines refuses a go statement whose goroutine may write to
// standard output (printReach) while a parallel region may run. During a
// region each node's standard output is forwarded to the master and
// printed once; outside the regions a slave's is discarded. Which
// goroutine wrote cannot be told apart: a write of another goroutine
// during a region is forwarded from every slave too, and printed more
// than once. A goroutine that runs regions itself is regionsInGoroutines'
// to judge: no region runs but its own (or it is waited for at once),
// and its writes come between them.
func (t *translator) printsInGoroutines() {
	if len(t.regions) == 0 {
		return
	}
	rc, pr := t.regionReach(), t.printReach()
	var gos, free []*ast.GoStmt // gos: those that run no region; free: those that do, not joined at once
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				switch {
				case t.runsRegion(rc, g.Call) == nil:
					gos = append(gos, g)
				case !t.joinedAfter(rc, g):
					free = append(free, g)
				}
			}
			return true
		})
	}
	for _, g := range gos {
		w := t.writeSiteIn(pr, g.Call)
		if w == nil {
			continue
		}
		if at := t.overlapped(rc, pr, g, free); at != nil {
			t.errorf(g.Pos(), "this goroutine writes to standard output (%s) and may still run while a parallel region runs (%s): what it writes during a region is forwarded from every node with the region's output, and printed more than once; print from the code that runs the regions (send it the values), wait for the goroutine before the next region (wg.Wait() with a deferred wg.Done(), or <-done with close(done) as its last statement), or start it after the last region",
				t.describeWrite(pr, w), t.where(at.Pos()))
		}
	}
}

// writeSiteIn returns the first place of call, started by a go statement,
// that may write to standard output (pr, printReach's): in its arguments,
// in the body of its function literal, or the call itself; nil if none.
func (t *translator) writeSiteIn(pr reach, call *ast.CallExpr) ast.Node {
	lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit)
	if !ok {
		return t.regionSiteIn(pr, call)
	}
	for _, a := range call.Args {
		if w := t.regionSiteIn(pr, a); w != nil {
			return w
		}
	}
	return t.regionSiteIn(pr, lit.Body)
}

// overlapped returns a region, or a call that may run one, that may run
// while the goroutine g starts does, or nil. None does where g is joined
// before anything after it may run a region (joinedBefore), or where g is
// in main (not in a function literal), and no region can run once main
// has reached it: none after it, none in a loop of main that holds it,
// none deferred (noRegionAfter), and main has no goto or labelled branch.
// Where a goroutine of free runs regions meanwhile, g must be in it, or
// after main's wait for it (joinOf).
func (t *translator) overlapped(rc, pr reach, g *ast.GoStmt, free []*ast.GoStmt) ast.Node {
	mainDecl := t.mainDecl()
	inMain := mainDecl != nil && t.enclosing(g, isFunc) == ast.Node(mainDecl)
	for _, f := range free {
		if within(g.Pos(), f.Call) {
			continue
		}
		lit, ok := ast.Unparen(f.Call.Fun).(*ast.FuncLit)
		var join ast.Stmt
		if ok && inMain {
			join = t.joinOf(f, lit, mainDecl.Body)
		}
		if join == nil || g.Pos() < join.End() {
			return t.runsRegion(rc, f.Call)
		}
	}
	if t.joinedBefore(rc, &pr, g) {
		return nil
	}
	if inMain && !hasLabeledBranch(mainDecl.Body) {
		from := g.End()
		if loop, _ := t.outermostLoop(g, mainDecl); loop != nil {
			from = loop.Pos()
		}
		if t.noRegionAfter(from, mainDecl, rc) {
			return nil
		}
	}
	return t.nextRegion(rc, g)
}

// nextRegion returns the first region, or call that may run one, after g
// in its function, or else in a loop of its function that holds it, or
// else the program's first region: one that may run while g's goroutine
// does.
func (t *translator) nextRegion(rc reach, g *ast.GoStmt) ast.Node {
	var at ast.Node
	ast.Inspect(funcBody(t.funcOf(g)), func(n ast.Node) bool {
		if at == nil && n != nil && n.Pos() >= g.End() && t.runsHere(rc, n) {
			at = n
		}
		return at == nil
	})
	for p := t.parent[g]; at == nil && p != nil && !isFunc(p); p = t.parent[p] {
		switch p.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			at = t.regionSiteIn(rc, p)
		}
	}
	if at == nil {
		at = t.regions[0].stmt
	}
	return at
}
