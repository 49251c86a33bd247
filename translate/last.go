package translate

import (
	"go/ast"
	"go/types"
)

// findLast marks the regions of main that are statically the program's
// last: after them (in main, in any function main calls, in deferred calls)
// no other region can run. A slave leaves the job after such a region
// (Region.EndLast), so the sequential code that follows runs once.
func (t *translator) findLast() {
	if t.p.name != "main" {
		return
	}
	mainFn, _ := t.p.types.Scope().Lookup("main").(*types.Func)
	mainDecl := t.decls[mainFn]
	if mainDecl == nil || mainDecl.Body == nil {
		return
	}
	// Functions that may run a region, transitively through static calls.
	has := map[*types.Func]bool{}
	dynamic := false // a region may be reached through a function value or interface
	for _, r := range t.regions {
		fd, _ := r.fn.(*ast.FuncDecl)
		if fd == nil {
			dynamic = true
			fd, _ = t.enclosing(r.stmt, func(n ast.Node) bool { _, ok := n.(*ast.FuncDecl); return ok }).(*ast.FuncDecl)
		}
		if fn, ok := t.info.Defs[fd.Name].(*types.Func); ok {
			has[fn] = true
		}
	}
	callees := map[*types.Func][]*types.Func{}
	for fn, d := range t.decls {
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
	for changed := true; changed; {
		changed = false
		for fn, cs := range callees {
			for _, c := range cs {
				if has[c] && !has[fn] {
					has[fn], changed = true, true
				}
			}
		}
	}
	for fn := range has {
		if t.valueUse[fn] || fn.Type().(*types.Signature).Recv() != nil {
			dynamic = true
		}
	}
	mayRunRegion := func(call *ast.CallExpr) bool {
		if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
			return false
		}
		if c := t.staticCallee(call); c != nil {
			return has[c]
		}
		switch f := ast.Unparen(call.Fun).(type) {
		case *ast.Ident:
			switch t.info.Uses[f].(type) {
			case *types.Builtin, *types.Func:
				return false
			}
		case *ast.SelectorExpr:
			if fn, ok := t.info.Uses[f.Sel].(*types.Func); ok && fn.Pkg() != t.p.types {
				if sel := t.info.Selections[f]; sel == nil {
					return false // a package-level function of another package
				} else if _, iface := sel.Recv().Underlying().(*types.Interface); !iface {
					return false
				}
			}
		}
		return dynamic
	}
	hasGoto := false
	ast.Inspect(mainDecl.Body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Label != nil {
			hasGoto = true
		}
		return true
	})
	if hasGoto {
		return
	}
	for _, r := range t.regions {
		if r.fn != ast.Node(mainDecl) || r.outer != nil {
			continue
		}
		last := true
		for p := t.parent[r.stmt]; p != nil && p != ast.Node(mainDecl); p = t.parent[p] {
			switch p.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				last = false
			}
		}
		ast.Inspect(mainDecl.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.DeferStmt:
				if mayRunRegion(n.Call) {
					last = false
				}
			case *ast.CallExpr:
				if n.Pos() >= r.stmt.End() && mayRunRegion(n) {
					last = false
				}
			case ast.Stmt:
				if n.Pos() >= r.stmt.End() && t.regionAt[n] != nil {
					last = false
				}
			}
			return last
		})
		r.last = last
	}
}
