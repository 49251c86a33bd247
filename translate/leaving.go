package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// leavingStmt returns, for main's last place that may run a region (site)
// when no loop of main holds it, the statement of main after which that
// place cannot run again: the statement of main's body that holds it, or,
// where it is in the function literal of a go statement of main's body,
// the later statement of main's body that waits for that goroutine's end
// (joinOf). Function literals on the way must be called where they are
// made (func() { … }()), or be that goroutine's. It returns nil where the
// place is in a deferred call, in a function literal that may run later,
// in another goroutine, in a loop of main around a function literal, and
// where the statement of main's body is a region (its Region.EndLast
// makes the slaves leave, findLast).
func (t *translator) leavingStmt(site ast.Node, mainDecl *ast.FuncDecl) ast.Stmt {
	var g *ast.GoStmt    // the go statement whose function literal holds site
	var lit *ast.FuncLit // its function literal
	loop := false        // a loop holds site, outside the function literals seen
	n := site
	for p := t.parent[n]; p != ast.Node(mainDecl.Body); n, p = p, t.parent[p] {
		switch p := p.(type) {
		case nil, *ast.DeferStmt:
			return nil
		case *ast.ForStmt, *ast.RangeStmt:
			loop = true
		case *ast.GoStmt:
			if p != g {
				return nil // go f(…): nothing says when it ends
			}
		case *ast.FuncLit:
			if !t.madeToCall(p) {
				return nil // a function value, which may be called later
			}
			loop = false
			if gs, ok := t.parent[t.parent[p]].(*ast.GoStmt); ok {
				if g != nil {
					return nil // a goroutine started by a goroutine
				}
				g, lit = gs, p
			}
		}
	}
	top, ok := n.(ast.Stmt)
	switch {
	case !ok || loop || t.regionAt[top] != nil:
		return nil
	case g == nil:
		return top
	case g != top:
		return nil // a go statement in a block of main: its join may be skipped
	}
	return t.joinOf(g, lit, mainDecl.Body)
}

// joinOf returns the first statement of main's body after the go
// statement g (there) that waits for the end of g's goroutine, which runs
// the function literal lit: wg.Wait() or a receive from ch (<-ch, v := <-ch),
// where lit's body signals wg or ch once it has ended (endSignal), and main
// uses wg or ch in no other way that could end the wait sooner
// (onlyJoinUses). Nil if there is none.
func (t *translator) joinOf(g *ast.GoStmt, lit *ast.FuncLit, body *ast.BlockStmt) ast.Stmt {
	i := slices.Index(body.List, ast.Stmt(g))
	if i < 0 {
		return nil
	}
	for _, s := range body.List[i+1:] {
		obj := t.waitGroupCall(s, "Wait")
		if _, deferred := s.(*ast.DeferStmt); deferred {
			obj = nil
		}
		if obj == nil {
			obj = t.receivedFrom(s)
		}
		if obj != nil && t.endSignal(lit.Body, obj) && t.onlyJoinUses(body, obj, lit, s) {
			return s
		}
	}
	return nil
}

// receivedFrom returns the variable ch where s is <-ch or v[, ok] := <-ch
// (or =), else nil.
func (t *translator) receivedFrom(s ast.Stmt) types.Object {
	var x ast.Expr
	switch s := s.(type) {
	case *ast.ExprStmt:
		x = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			x = s.Rhs[0]
		}
	}
	u, ok := ast.Unparen(x).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return nil
	}
	if id, ok := ast.Unparen(u.X).(*ast.Ident); ok {
		return t.info.Uses[id]
	}
	return nil
}

// endSignal reports whether body signals obj once the rest of it has run:
// one of its statements is defer wg.Done() or defer close(ch), or its last
// one is wg.Done(), close(ch) or ch <- v. What its deferred calls run
// after that is noRegionAfter's to check.
func (t *translator) endSignal(body *ast.BlockStmt, obj types.Object) bool {
	return t.signalStmt(body, obj) != nil
}

// signalStmt returns the statement of body by which endSignal finds that
// body signals obj once the rest of it has run, or nil.
func (t *translator) signalStmt(body *ast.BlockStmt, obj types.Object) ast.Stmt {
	for i, s := range body.List {
		last := i == len(body.List)-1
		switch s.(type) {
		case *ast.DeferStmt:
			if t.signals(s, obj) {
				return s
			}
		case *ast.ExprStmt, *ast.SendStmt:
			if last && t.signals(s, obj) {
				return s
			}
		}
	}
	return nil
}

// signals reports whether s is one of endSignal's forms for obj, deferred
// or not: wg.Done(), close(ch) or ch <- v.
func (t *translator) signals(s ast.Stmt, obj types.Object) bool {
	var call *ast.CallExpr
	switch s := s.(type) {
	case *ast.DeferStmt:
		call = s.Call
	case *ast.ExprStmt:
		call, _ = s.X.(*ast.CallExpr)
	case *ast.SendStmt:
		id, ok := ast.Unparen(s.Chan).(*ast.Ident)
		return ok && t.info.Uses[id] == obj
	}
	return t.waitGroupCall(s, "Done") == obj || call != nil && t.closes(call, obj)
}

// closes reports whether call is the builtin close(ch) of the variable
// obj.
func (t *translator) closes(call *ast.CallExpr, obj types.Object) bool {
	if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); !ok || b.Name() != "close" || len(call.Args) != 1 {
		return false
	}
	id, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
	return ok && t.info.Uses[id] == obj
}

// onlyJoinUses reports whether obj, a variable declared in main's body,
// is used there only as the goroutine's signal (inside lit) and the wait
// of the statement join, and, for a sync.WaitGroup, in wg.Add(…) calls:
// nothing else can close the channel, send on it, or call wg.Done(), so
// the wait ends only once lit has signalled. A variable declared elsewhere
// (a package's, which other functions may use) is refused.
func (t *translator) onlyJoinUses(body ast.Node, obj types.Object, lit *ast.FuncLit, join ast.Stmt) bool {
	if _, ok := obj.(*types.Var); !ok || !within(obj.Pos(), body) {
		return false
	}
	ok := true
	signals := 0
	ast.Inspect(body, func(n ast.Node) bool {
		id, isID := n.(*ast.Ident)
		if !isID || t.info.Uses[id] != obj {
			return ok
		}
		switch {
		case within(id.Pos(), join):
		case t.isSignal(id, lit):
			signals++
		default:
			sel, isSel := t.parent[id].(*ast.SelectorExpr)
			call, isCall := t.parent[sel].(*ast.CallExpr)
			ok = isSel && isCall && call.Fun == ast.Expr(sel) && sel.Sel.Name == "Add"
		}
		return ok
	})
	return ok && signals == 1
}

// isSignal reports whether the use id is in one of lit's body's own
// statements that signal its variable (endSignal's forms): a close, a
// send, or a Done call.
func (t *translator) isSignal(id *ast.Ident, lit *ast.FuncLit) bool {
	obj := t.info.Uses[id]
	for _, s := range lit.Body.List {
		if !within(id.Pos(), s) {
			continue
		}
		if send, ok := s.(*ast.SendStmt); ok {
			return ast.Unparen(send.Chan) == ast.Expr(id)
		}
		return t.signals(s, obj)
	}
	return false
}
