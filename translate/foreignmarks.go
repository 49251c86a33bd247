package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// This file marks, in a parallel loop's body, the places a function of
// another package assigns in every call through its receiver or an
// argument that is the same for every iteration (s.Note(v) with Note
// doing s.Last = v): the iteration writing it last on a node may leave the
// value it had at the region's entry, which the merge cannot see, so the
// nodes' values there are compared (cape.Mark), as for the loop's own
// writes (markWrites). The translator does not rewrite other packages:
// the mark stands after the call, naming the place from the argument.

// maxMarkBytes is the largest place a mark covers (cape's maxMarkSize).
const maxMarkBytes = 1 << 12

// foreignMarks records in r.marks the places that call, in r's loop body,
// makes its callee of another package assign at the top of its body (not
// under a condition, nor after a statement that may return), through a
// receiver or argument that is not the iteration's own.
func (t *translator) foreignMarks(r *region, call *ast.CallExpr) {
	if r.dir.kind != dirFor || r.loop == nil || r.loop.v == nil {
		return
	}
	fn, recv := t.externalCallee(call)
	st := t.callStatement(call)
	if fn == nil || st == nil {
		return
	}
	fp := t.foreign.load(fn.Pkg().Path())
	if fp == nil || fp.decls[fn.Origin().FullName()] == nil {
		return
	}
	decl := fp.decls[fn.Origin().FullName()]
	args := map[*types.Var]ast.Expr{}
	if v := paramVar(fp.info, decl, -1); v != nil && recv != nil {
		args[v] = recv
	}
	if sig, _ := fn.Type().(*types.Signature); sig != nil && !sig.Variadic() && !call.Ellipsis.IsValid() {
		for i, a := range call.Args {
			if v := paramVar(fp.info, decl, i); v != nil {
				args[v] = a
			}
		}
	}
	for _, s := range decl.Body.List {
		if as, ok := s.(*ast.AssignStmt); ok && as.Tok == token.ASSIGN {
			for _, l := range as.Lhs {
				t.foreignMark(r, fp, fn, st, args, l)
			}
		}
		if mayLeave(s) {
			break
		}
	}
}

// foreignMark records the mark of l, a place the callee fn assigns, if it
// is reached from an argument (args) that is one place for every
// iteration; a place CAPE cannot name from the caller's package (an
// unexported field) is marked whole through the pointer argument, or
// refused where it is too big to compare.
func (t *translator) foreignMark(r *region, fp *foreignPkg, fn *types.Func, st ast.Stmt, args map[*types.Var]ast.Expr, l ast.Expr) {
	v, suffix, named := t.foreignPlace(fp, l)
	e := args[v]
	if v == nil || e == nil || !t.markPure(e) || t.iterationPlace(r, e) || !t.markablePlace(r, stripAddr(e), nil) {
		return
	}
	if named {
		r.marks = append(r.marks, markedWrite{stmt: st, place: e, suffix: suffix})
		return
	}
	target := t.info.TypeOf(e)
	if p, ok := target.Underlying().(*types.Pointer); ok {
		target = p.Elem()
	}
	if size := types.SizesFor("gc", "amd64").Sizeof(target); size > maxMarkBytes {
		t.errorf(st.Pos(), "%s.%s writes %s (%s) in every call, one place for every iteration of the parallel loop, and CAPE cannot compare the nodes' values of it (a field of %s it cannot name, in %d bytes): the node of the last iteration may leave it as it was and another node's value would win; write it in one iteration only, or use a lastprivate variable", fn.Pkg().Name(), funcName(fn), types.ExprString(l), t.foreignWhere(l.Pos()), t.text(e), size)
		return
	}
	r.marks = append(r.marks, markedWrite{stmt: st, place: e, suffix: "", whole: true})
}

// foreignPlace reads l, a place in code of fp, as a parameter v and the
// path from it (".Last", "[0]", ".Buf[0]"): fields, and indices that are
// constants; named is false when a field on the path is one the main
// package cannot name. v is nil for any other place.
func (t *translator) foreignPlace(fp *foreignPkg, l ast.Expr) (v *types.Var, suffix string, named bool) {
	named = true
	for {
		switch x := ast.Unparen(l).(type) {
		case *ast.Ident:
			v, _ = fp.info.Uses[x].(*types.Var)
			return v, suffix, named
		case *ast.SelectorExpr:
			sel := fp.info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal {
				return nil, "", false
			}
			named = named && (sel.Obj().Exported() || sel.Obj().Pkg() == t.p.types)
			suffix = "." + x.Sel.Name + suffix
			l = x.X
		case *ast.IndexExpr:
			tv := fp.info.Types[x.Index]
			if tv.Value == nil || tv.Value.Kind() != constant.Int {
				return nil, "", false
			}
			if _, isMap := fp.info.TypeOf(x.X).Underlying().(*types.Map); isMap {
				return nil, "", false
			}
			suffix = "[" + tv.Value.ExactString() + "]" + suffix
			l = x.X
		case *ast.StarExpr:
			if suffix != "" {
				return nil, "", false
			}
			named = false // *p = v: the whole target
			l = x.X
		default:
			return nil, "", false
		}
	}
}

// callStatement returns the statement of a statement list that call is
// the whole of (f(x)) or the right-hand side of (y := f(x)), or nil.
func (t *translator) callStatement(call *ast.CallExpr) ast.Stmt {
	var st ast.Stmt
	switch p := t.parent[call].(type) {
	case *ast.ExprStmt:
		st = p
	case *ast.AssignStmt:
		if len(p.Rhs) == 1 && p.Rhs[0] == call {
			st = p
		}
	}
	if st == nil || !t.inList(st) {
		return nil
	}
	return st
}

// mayLeave reports whether s may end its function, or jump: a return, a
// panic's call, a goto or a labelled branch, outside function literals.
func mayLeave(s ast.Stmt) bool {
	leaves := false
	ast.Inspect(s, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			leaves = true
		case *ast.BranchStmt:
			leaves = leaves || x.Tok == token.GOTO || x.Label != nil
		case *ast.CallExpr:
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && (id.Name == "panic" || id.Name == "Exit") {
				leaves = true
			}
		}
		return !leaves
	})
	return leaves
}

// stripAddr returns x for &x, else e.
func stripAddr(e ast.Expr) ast.Expr {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		return u.X
	}
	return e
}
