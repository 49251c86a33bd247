package translate

import (
	"go/ast"
	"go/types"
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
// is accepted.
func (t *translator) regionsInGoroutines() {
	if len(t.regions) == 0 {
		return
	}
	rc := t.regionReach()
	type site struct {
		g  *ast.GoStmt
		at ast.Node
	}
	var sites []site
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				if at := t.runsRegion(rc, g.Call); at != nil {
					sites = append(sites, site{g, at})
				}
			}
			return true
		})
	}
	if len(sites) == 0 {
		return
	}
	concurrent := len(sites) > 1 || t.mainRunsRegion(rc)
	for _, s := range sites {
		if concurrent || t.inLoop(s.g) {
			t.errorf(s.g.Pos(), "this goroutine may run a parallel region (%s) while another region runs: the nodes run the regions one at a time and in the same order, which concurrent regions do not ensure; call it without go", t.where(s.at.Pos()))
		}
	}
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
		switch n := n.(type) {
		case *ast.GoStmt:
			return false
		case *ast.CallExpr:
			if t.mayRunRegion(rc, n) {
				at = n
			}
		case ast.Stmt:
			if t.regionAt[n] != nil {
				at = n
			}
		}
		return at == nil
	})
	return at
}

// mainRunsRegion reports whether main may run a region itself: a region,
// or a call that may run one, outside its go statements.
func (t *translator) mainRunsRegion(rc reach) bool {
	if t.p.name != "main" {
		return true
	}
	mainFn, _ := t.p.types.Scope().Lookup("main").(*types.Func)
	d := t.facts.decls[mainFn]
	return d == nil || d.Body == nil || t.regionSiteIn(rc, d.Body) != nil
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
