package translate

import (
	"go/ast"
	"go/types"
	"sort"
)

// The calls that make arena memory present before the kernel may access
// it (cape.Present, PresentPtr, PresentAll; see the runtime's present.go).
// With lazy transfer and a user-mode-only userfaultfd, a system call that
// reads or writes an arena page this node does not hold fails with EFAULT,
// or moves fewer bytes, instead of fetching the page. Only code outside
// the package hands memory to the kernel (os, syscall, net, io and the
// rest of the standard library), so every operand of every call that may
// run code outside the package — a function or method of another package,
// an interface method, a function value — that may reach memory (a slice,
// a pointer, a map, an interface, or an array or struct holding one) is
// wrapped, in regions and in sequential code alike: f.Read(buf) becomes
// f.Read(cape.Present(buf)). The wrapper returns its operand, evaluated
// once and in its place, so the program's meaning is unchanged. The
// receiver of another package's method is wrapped too; one whose method
// takes its address becomes (*cape.PresentAll(&x)). Not wrapped: calls of
// the package's own functions and methods (their calls are wrapped in
// turn) and of interfaces only its types implement, of the cape package,
// of built-ins and function literals called
// where they stand, conversions, operands that cannot hold a reference
// (numbers, strings, arrays and structs of them, functions, channels) and
// a multi-valued call as the only argument.

// emitPresents wraps the operands that reach other packages' code in the
// package's files. It runs before the regions are written, which take
// their bodies with it, and after the edits before statements.
func (t *emitter) emitPresents(outs map[*ast.File]*fileOut) {
	type wrapped struct {
		e    ast.Expr
		fn   string
		addr bool // the receiver's address is what the method takes
	}
	var ws []wrapped
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !t.callsOut(call) {
				return true
			}
			if recv, addr := t.presentRecv(call); recv != nil {
				fn := "PresentAll"
				if !addr {
					fn = presentFunc(t.info.TypeOf(recv))
				}
				ws = append(ws, wrapped{e: recv, fn: fn, addr: addr})
			}
			for _, a := range call.Args {
				if tv, ok := t.info.Types[a]; ok && !tv.IsType() && !tv.IsNil() {
					if fn := presentFunc(tv.Type); fn != "" {
						ws = append(ws, wrapped{e: a, fn: fn})
					}
				}
			}
			return true
		})
	}
	// Outer operands first (editor.wrap).
	sort.SliceStable(ws, func(i, j int) bool {
		if ws[i].e.Pos() != ws[j].e.Pos() {
			return ws[i].e.Pos() < ws[j].e.Pos()
		}
		return ws[i].e.End() > ws[j].e.End()
	})
	for _, w := range ws {
		fo := t.outAt(outs, w.e.Pos())
		open, close := fo.cape()+"."+w.fn+"(", ")"
		if w.addr {
			open, close = "(*"+open+"&", "))"
		}
		fo.ed.wrap(fo.off(w.e.Pos()), fo.off(w.e.End()), open, close)
	}
}

// callsOut reports whether call may run code outside the package: it is
// not a conversion, nor a call of a built-in, of a function literal where
// it stands, of a function or concrete method of this package or of the
// cape package, or of a method of an interface that only this package's
// types implement.
func (t *translator) callsOut(call *ast.CallExpr) bool {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		return false
	}
	var id *ast.Ident
	switch f := calleeOf(call).(type) {
	case *ast.FuncLit:
		return false
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel := t.info.Selections[f]; sel != nil && sel.Kind() == types.MethodVal && types.IsInterface(sel.Recv()) {
			// Another package's implementation may run, unless none
			// exists (an interface with an unexported method).
			iface, _ := sel.Recv().Underlying().(*types.Interface)
			return iface == nil || t.externalImpl(iface) != ""
		}
		id = f.Sel
	default:
		return true
	}
	switch o := t.info.Uses[id].(type) {
	case *types.Builtin:
		return false
	case *types.Func:
		p := o.Pkg()
		return p != t.p.types && (p == nil || p.Path() != capePath)
	}
	return true // a function value
}

// presentRecv returns the receiver's operand of call, if call is a method
// call of another package's type whose receiver may reach memory, and
// whether the method takes the operand's address.
func (t *translator) presentRecv(call *ast.CallExpr) (recv ast.Expr, addr bool) {
	f, ok := calleeOf(call).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	sel := t.info.Selections[f]
	if sel == nil || sel.Kind() != types.MethodVal {
		return nil, false
	}
	rt := t.info.TypeOf(f.X)
	if rt == nil || presentFunc(rt) == "" {
		return nil, false
	}
	sig, _ := sel.Obj().Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return f.X, false
	}
	// A pointer method called on an addressable operand takes its
	// address; on an operand that is not addressable (a call's result), it
	// is reached through an embedded pointer, which a copy holds too.
	_, wantsPtr := sig.Recv().Type().Underlying().(*types.Pointer)
	_, isPtr := rt.Underlying().(*types.Pointer)
	return f.X, wantsPtr && !isPtr && !types.IsInterface(rt) && t.info.Types[f.X].Addressable()
}

// presentFunc names the cape function that makes what a value of type typ
// reaches present: Present for a slice of values without references,
// PresentPtr for a pointer to one, PresentAll for anything else that holds
// references; "" for a value that holds none.
func presentFunc(typ types.Type) string {
	if _, ok := typ.(*types.TypeParam); ok {
		return "PresentAll"
	}
	switch u := typ.Underlying().(type) {
	case *types.Slice:
		if !innerRefs(u.Elem(), false) {
			return "Present"
		}
		return "PresentAll"
	case *types.Pointer:
		if !innerRefs(u.Elem(), false) {
			return "PresentPtr"
		}
		return "PresentAll"
	case *types.Array, *types.Struct:
		if innerRefs(u, false) {
			return "PresentAll"
		}
	case *types.Map, *types.Interface:
		return "PresentAll"
	}
	return ""
}
