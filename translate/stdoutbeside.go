package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// printsBesideRegions refuses a write to standard output that the code
// starting a goroutine that runs parallel regions (the one goroutine
// regionsInGoroutines accepts, not waited for at once) may make while that
// goroutine runs a region: main working on while a goroutine runs the
// regions. During a region every node's standard output is forwarded to
// the master with the region's output, whichever goroutine wrote it, so
// such a write would be printed once per node, among the region's lines.
// The writes looked at are those after the go statement in its function,
// up to the statement that waits for the goroutine (litJoin, callJoin).
// sites are the go statements regionsInGoroutines accepted. A go statement
// of another function than main needs no more: main then may run a region
// itself (a call of that function), and regionsInGoroutines refuses the
// goroutine.
func (t *translator) printsBesideRegions(sites []goSite) {
	if len(sites) == 0 {
		return
	}
	rc, pr := t.regionReach(), t.printReach()
	for _, s := range sites {
		if w := t.writeBeside(rc, pr, s.g); w != nil {
			t.errorf(w.Pos(), "%s writes to standard output while the goroutine started at %s may run a parallel region (%s): during a region every node's standard output is forwarded to the master with the region's output, so this write would be printed once per node; print once the goroutine has ended (after wg.Wait(), with a deferred wg.Done() in it, or after <-done, with close(done) its last statement), or print from the goroutine, between its regions",
				t.describeWrite(pr, w), t.where(s.g.Pos()), t.where(s.at.Pos()))
		}
	}
}

// writeBeside returns the first place that may write to standard output
// (pr, printReach's) and may run while the goroutine g starts runs, as
// printsBesideRegions says, or nil.
func (t *translator) writeBeside(rc, pr reach, g *ast.GoStmt) ast.Node {
	fn := t.enclosing(g, isFunc)
	body, ok := funcBody(fn).(*ast.BlockStmt)
	if !ok {
		return nil
	}
	stop := body.End()
	lit, isLit := ast.Unparen(g.Call.Fun).(*ast.FuncLit)
	var join ast.Stmt
	if list := t.stmtList(g); isLit {
		join = t.litJoin(g, lit, list)
	} else {
		join = t.callJoin(rc, g, list)
	}
	if join != nil {
		stop = join.Pos()
	}
	return t.writeBetween(pr, body, g.End(), stop, join != nil)
}

// writeBetween returns the first place of body within [from, to) that may
// write to standard output (pr), or nil. Deferred calls are skipped where
// joined: they run once the function returns, after the join.
func (t *translator) writeBetween(pr reach, body *ast.BlockStmt, from, to token.Pos, joined bool) ast.Node {
	var w ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if w != nil || n == nil || n.End() <= from || n.Pos() >= to {
			return false
		}
		if _, ok := n.(*ast.DeferStmt); ok && joined {
			return false
		}
		if n.Pos() >= from && n.End() <= to && t.runsHere(pr, n) {
			w = n
			return false
		}
		return true
	})
	return w
}

// litJoin returns the statement of list, after g (go func() { … }()),
// that waits for the goroutine, as joinedBefore finds it: wg.Wait(), where
// the literal's end signals wg and no statement between calls wg.Done(),
// or <-ch, where its end signals ch and its function uses ch for nothing
// else; or nil.
func (t *translator) litJoin(g *ast.GoStmt, lit *ast.FuncLit, list []ast.Stmt) ast.Stmt {
	i := slices.Index(list, ast.Stmt(g))
	if i < 0 {
		return nil
	}
	for j, s := range list[i+1:] {
		if wg := t.waitGroupCall(s, "Wait"); wg != nil && t.endSignal(lit.Body, wg) && !t.callsDone(list[i+1:i+1+j], wg) {
			return s
		}
		if ch := t.receivedFrom(s); ch != nil && t.endSignal(lit.Body, ch) && t.onlyJoinUses(funcBody(t.funcOf(g)), ch, lit, s) {
			return s
		}
	}
	return nil
}

// callJoin returns the statement of list, after g (go f(args), f a
// function of the program called statically), that waits for the
// goroutine: f's last statement sends on or closes a channel f was given
// (a parameter, or a field of its receiver: done, s.done), no deferred
// call of f may run a region, and the statement receives from that
// channel as g names it, the first statement after g to mention it.
func (t *translator) callJoin(rc reach, g *ast.GoStmt, list []ast.Stmt) ast.Stmt {
	fn := t.staticCallee(g.Call)
	d := t.facts.decls[fn]
	if d == nil || d.Body == nil || len(d.Body.List) == 0 || t.defersRegion(rc, d.Body) {
		return nil
	}
	var ch ast.Expr
	switch s := d.Body.List[len(d.Body.List)-1].(type) {
	case *ast.SendStmt:
		ch = s.Chan
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok && len(call.Args) == 1 {
			if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok && b.Name() == "close" {
				ch = call.Args[0]
			}
		}
	}
	if ch == nil {
		return nil
	}
	want := t.callerName(g.Call, d, ch)
	if want == "" {
		return nil
	}
	i := slices.Index(list, ast.Stmt(g))
	if i < 0 {
		return nil
	}
	for _, s := range list[i+1:] {
		received, mentioned := false, false
		ast.Inspect(s, func(n ast.Node) bool {
			x, ok := n.(ast.Expr)
			if !ok || types.ExprString(x) != want {
				return true
			}
			mentioned = true
			u, ok := t.parent[x].(*ast.UnaryExpr)
			received = received || ok && u.Op == token.ARROW
			return false
		})
		if mentioned {
			if received {
				return s
			}
			return nil
		}
	}
	return nil
}

// callerName returns ch, an expression of f's body rooted at one of its
// parameters or its receiver (done, s.done), as call names it (the
// argument or the receiver expression in its place), or "".
func (t *translator) callerName(call *ast.CallExpr, f *ast.FuncDecl, ch ast.Expr) string {
	root := ch
	for {
		sel, ok := ast.Unparen(root).(*ast.SelectorExpr)
		if !ok {
			break
		}
		root = sel.X
	}
	id, ok := ast.Unparen(root).(*ast.Ident)
	if !ok || ch == nil {
		return ""
	}
	obj := t.info.Uses[id]
	var arg ast.Expr
	if f.Recv != nil && len(f.Recv.List) == 1 && len(f.Recv.List[0].Names) == 1 && t.info.Defs[f.Recv.List[0].Names[0]] == obj {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			arg = sel.X
		}
	}
	k := 0
	for _, field := range f.Type.Params.List {
		for _, name := range field.Names {
			if t.info.Defs[name] == obj && k < len(call.Args) && !call.Ellipsis.IsValid() {
				arg = call.Args[k]
			}
			k++
		}
	}
	if arg == nil {
		return ""
	}
	return types.ExprString(arg) + strings.TrimPrefix(types.ExprString(ch), id.Name)
}
