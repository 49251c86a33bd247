package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A recvSource is one value that a method of the package may receive as its
// receiver: the operand of a call or method value x.M, the first argument
// of a method expression call T.M(x), or a value converted to an interface
// whose dynamic methods include M.
type recvSource struct {
	pos     token.Pos
	expr    ast.Expr // the receiver's operand
	addr    bool     // the method takes &expr (a pointer method on an addressable value)
	deref   bool     // the method takes *expr (a value method on a pointer)
	unknown string   // a receiver the analysis cannot follow, described
}

// recvFacts records where the receivers of the package's methods come from.
// It runs on every node of the package, after the other facts.
func (t *collector) recvFacts(n ast.Node) {
	switch n := n.(type) {
	case *ast.FuncLit:
		if n.Type.Params != nil {
			for _, f := range n.Type.Params.List {
				for _, name := range f.Names {
					if v, ok := t.info.Defs[name].(*types.Var); ok {
						t.facts.litOf[v] = n
					}
				}
			}
		}
	case *ast.SelectorExpr:
		t.methodOperand(n)
	case *ast.AssignStmt:
		if len(n.Lhs) == len(n.Rhs) {
			for i, l := range n.Lhs {
				t.converted(n.Rhs[i], t.info.TypeOf(l))
			}
		} else {
			for _, l := range n.Lhs {
				t.convertedUnknown(n.Rhs[0], t.info.TypeOf(l), "a multi-value assignment")
			}
		}
	case *ast.ValueSpec:
		if n.Type != nil {
			typ := t.info.TypeOf(n.Type)
			if len(n.Values) == len(n.Names) {
				for _, v := range n.Values {
					t.converted(v, typ)
				}
			} else if len(n.Values) > 0 {
				t.convertedUnknown(n.Values[0], typ, "a multi-value declaration")
			}
		}
	case *ast.CallExpr:
		t.callConversions(n)
	case *ast.ReturnStmt:
		t.returnConversions(n)
	case *ast.CompositeLit:
		t.literalConversions(n)
	case *ast.SendStmt:
		if ch, ok := t.info.TypeOf(n.Chan).Underlying().(*types.Chan); ok {
			t.converted(n.Value, ch.Elem())
		}
	case *ast.RangeStmt:
		if n.Tok == token.ASSIGN && n.Value != nil {
			if vt := t.info.TypeOf(n.Value); vt != nil && types.IsInterface(vt) {
				t.allMethodsUnknown(t.info.TypeOf(n.X), n.Value.Pos(), "a range clause converting it to an interface")
			}
		}
	case *ast.IndexExpr:
		if m, ok := t.info.TypeOf(n.X).Underlying().(*types.Map); ok {
			t.converted(n.Index, m.Key())
		}
	}
}

// methodOperand records the receiver of a method call or method value.
func (t *collector) methodOperand(x *ast.SelectorExpr) {
	sel := t.info.Selections[x]
	if sel == nil || types.IsInterface(sel.Recv()) {
		return
	}
	fn, ok := sel.Obj().(*types.Func)
	if !ok || fn.Pkg() != t.p.types {
		return
	}
	fn = fn.Origin()
	switch sel.Kind() {
	case types.MethodVal:
		if len(sel.Index()) > 1 && !embeddedValues(t.info.TypeOf(x.X), sel.Index()) {
			t.facts.recvs[fn] = append(t.facts.recvs[fn], recvSource{pos: x.Pos(), unknown: "an embedded pointer field (a promoted method)"})
			return
		}
		// A method promoted through embedded struct values receives
		// (the address of) memory inside x.X's: x.X's origin is its.
		_, ptrRecv := fn.Type().(*types.Signature).Recv().Type().Underlying().(*types.Pointer)
		_, ptrOperand := t.info.TypeOf(x.X).Underlying().(*types.Pointer)
		t.facts.recvs[fn] = append(t.facts.recvs[fn], recvSource{pos: x.X.Pos(), expr: x.X, addr: ptrRecv && !ptrOperand, deref: !ptrRecv && ptrOperand})
	case types.MethodExpr:
		if call, ok := t.parent[x].(*ast.CallExpr); ok && call.Fun == x && len(call.Args) > 0 && !call.Ellipsis.IsValid() {
			t.facts.recvs[fn] = append(t.facts.recvs[fn], recvSource{pos: call.Args[0].Pos(), expr: call.Args[0]})
			return
		}
		t.facts.recvs[fn] = append(t.facts.recvs[fn], recvSource{pos: x.Pos(), unknown: "a method expression used as a value"})
	}
}

// embeddedValues reports whether the path index (a selection's: embedded
// fields, then the method) from a value of type typ goes through embedded
// struct values only, not pointers: the method's receiver then lies
// inside the value's memory.
func embeddedValues(typ types.Type, index []int) bool {
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	for _, i := range index[:len(index)-1] {
		st, ok := typ.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return false
		}
		typ = st.Field(i).Type()
		if _, ptr := typ.Underlying().(*types.Pointer); ptr {
			return false
		}
	}
	return true
}

// converted records that e is converted to the type to: when to is an
// interface and e is not, every method of e's type may later receive e.
func (t *collector) converted(e ast.Expr, to types.Type) {
	if to == nil || !types.IsInterface(to) {
		return
	}
	from := t.info.TypeOf(e)
	if from == nil || types.IsInterface(from) {
		return
	}
	ms := types.NewMethodSet(from)
	for i := range ms.Len() {
		sel := ms.At(i)
		fn, ok := sel.Obj().(*types.Func)
		if !ok || fn.Pkg() != t.p.types {
			continue
		}
		fn = fn.Origin()
		if len(sel.Index()) > 1 {
			t.facts.recvs[fn] = append(t.facts.recvs[fn], recvSource{pos: e.Pos(), unknown: "an embedded field of a value converted to an interface"})
			continue
		}
		_, ptrRecv := fn.Type().(*types.Signature).Recv().Type().Underlying().(*types.Pointer)
		_, ptrOperand := from.Underlying().(*types.Pointer)
		t.facts.recvs[fn] = append(t.facts.recvs[fn], recvSource{pos: e.Pos(), expr: e, deref: !ptrRecv && ptrOperand})
	}
}

// convertedUnknown records that a value of type to, which the analysis
// cannot name as an expression (one result of a multi-value call), may be
// converted: its methods' receivers are unknown.
func (t *collector) convertedUnknown(e ast.Expr, to types.Type, what string) {
	tup, ok := t.info.TypeOf(e).(*types.Tuple)
	if !ok || to == nil || !types.IsInterface(to) {
		return
	}
	for i := range tup.Len() {
		t.allMethodsUnknown(tup.At(i).Type(), e.Pos(), what+" converting it to an interface")
	}
}

// allMethodsUnknown marks the receivers of every method of the package's
// named types that a value of type typ contains as unknown.
func (t *collector) allMethodsUnknown(typ types.Type, pos token.Pos, what string) {
	for _, n := range t.namedIn(typ, map[types.Type]bool{}) {
		for _, T := range []types.Type{n, types.NewPointer(n)} {
			ms := types.NewMethodSet(T)
			for i := range ms.Len() {
				if fn, ok := ms.At(i).Obj().(*types.Func); ok && fn.Pkg() == t.p.types {
					t.facts.recvs[fn.Origin()] = append(t.facts.recvs[fn.Origin()], recvSource{pos: pos, unknown: what})
				}
			}
		}
	}
}

// namedIn returns the package's named types that typ mentions.
func (t *translator) namedIn(typ types.Type, seen map[types.Type]bool) []*types.Named {
	if typ == nil || seen[typ] {
		return nil
	}
	seen[typ] = true
	var out []*types.Named
	switch u := typ.(type) {
	case *types.Named:
		if u.Obj().Pkg() == t.p.types {
			out = append(out, u)
		}
		return append(out, t.namedIn(u.Underlying(), seen)...)
	case *types.Pointer:
		return t.namedIn(u.Elem(), seen)
	case *types.Slice:
		return t.namedIn(u.Elem(), seen)
	case *types.Array:
		return t.namedIn(u.Elem(), seen)
	case *types.Map:
		return append(t.namedIn(u.Key(), seen), t.namedIn(u.Elem(), seen)...)
	case *types.Chan:
		return t.namedIn(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			out = append(out, t.namedIn(u.Field(i).Type(), seen)...)
		}
	}
	return out
}

// callConversions records the conversions of a call's arguments to the
// parameters' interface types, and of an explicit conversion's operand.
func (t *collector) callConversions(call *ast.CallExpr) {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		if len(call.Args) == 1 {
			t.converted(call.Args[0], tv.Type)
		}
		return
	}
	sig, _ := t.info.TypeOf(call.Fun).(*types.Signature)
	if sig == nil {
		return
	}
	generic := t.genericSig(call)
	if len(call.Args) == 1 && sig.Params().Len() > 1 {
		for i := range sig.Params().Len() {
			t.convertedUnknown(call.Args[0], sig.Params().At(i).Type(), "a multi-value argument")
		}
		return
	}
	for i, a := range call.Args {
		pt := paramType(sig, i, call.Ellipsis.IsValid())
		if generic != nil {
			gt := paramType(generic, i, call.Ellipsis.IsValid())
			if _, ok := gt.(*types.TypeParam); ok {
				pt = gt
			} else if mentionsTypeParam(gt, map[types.Type]bool{}) {
				t.allMethodsUnknown(t.info.TypeOf(a), a.Pos(), "an argument of generic function "+t.text(call.Fun))
			}
		}
		t.converted(a, pt)
	}
}

// calleeOf returns the expression call calls, without parentheses or
// explicit type arguments (f[int](x) calls f).
func calleeOf(call *ast.CallExpr) ast.Expr {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	return fun
}

// genericSig returns the generic signature of the function that call
// instantiates, or nil.
func (t *translator) genericSig(call *ast.CallExpr) *types.Signature {
	fun := calleeOf(call)
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	fn, ok := t.info.Uses[id].(*types.Func)
	if id == nil || !ok {
		return nil
	}
	sig := fn.Origin().Type().(*types.Signature)
	if sig.TypeParams().Len() == 0 && (sig.Recv() == nil || fn.Origin() == fn) {
		return nil
	}
	return sig
}

// paramType returns the type that argument i of a call of sig is assigned
// to.
func paramType(sig *types.Signature, i int, ellipsis bool) types.Type {
	n := sig.Params().Len()
	if n == 0 {
		return nil
	}
	if sig.Variadic() && i >= n-1 && !ellipsis {
		if sl, ok := sig.Params().At(n - 1).Type().Underlying().(*types.Slice); ok {
			return sl.Elem()
		}
		return nil // append(b, s...) with a string s
	}
	if i >= n {
		return nil
	}
	return sig.Params().At(i).Type()
}

// mentionsTypeParam reports whether typ is or is built from a type
// parameter (or a function type: what it may be called with is open).
func mentionsTypeParam(typ types.Type, seen map[types.Type]bool) bool {
	return mentionsType(typ, func(t types.Type) bool {
		switch t.(type) {
		case *types.TypeParam, *types.Signature:
			return true
		}
		return false
	}, seen)
}

// mentionsType reports whether typ, or a type it is built from (element,
// key, field, type argument of a named type; not a named type's underlying
// type), is one that hit reports.
func mentionsType(typ types.Type, hit func(types.Type) bool, seen map[types.Type]bool) bool {
	if typ == nil || seen[typ] {
		return false
	}
	seen[typ] = true
	if hit(typ) {
		return true
	}
	switch u := typ.(type) {
	case *types.Named:
		for i := range u.TypeArgs().Len() {
			if mentionsType(u.TypeArgs().At(i), hit, seen) {
				return true
			}
		}
	case *types.Map:
		return mentionsType(u.Key(), hit, seen) || mentionsType(u.Elem(), hit, seen)
	case interface{ Elem() types.Type }: // pointer, slice, array, channel
		return mentionsType(u.Elem(), hit, seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if mentionsType(u.Field(i).Type(), hit, seen) {
				return true
			}
		}
	}
	return false
}

// returnConversions records the conversions of returned values to the
// enclosing function's interface results.
func (t *collector) returnConversions(ret *ast.ReturnStmt) {
	fn := t.enclosing(ret, isFunc)
	var sig *types.Signature
	switch f := fn.(type) {
	case *ast.FuncDecl:
		if o, ok := t.info.Defs[f.Name].(*types.Func); ok {
			sig = o.Type().(*types.Signature)
		}
	case *ast.FuncLit:
		sig, _ = t.info.TypeOf(f).(*types.Signature)
	}
	if sig == nil {
		return
	}
	if len(ret.Results) == sig.Results().Len() {
		for i, r := range ret.Results {
			t.converted(r, sig.Results().At(i).Type())
		}
		return
	}
	if len(ret.Results) == 1 {
		for i := range sig.Results().Len() {
			t.convertedUnknown(ret.Results[0], sig.Results().At(i).Type(), "a multi-value return")
		}
	}
}

// literalConversions records the conversions of a composite literal's
// elements to interface element or field types.
func (t *collector) literalConversions(lit *ast.CompositeLit) {
	typ := t.info.TypeOf(lit)
	if typ == nil {
		return
	}
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	for i, el := range lit.Elts {
		kv, _ := el.(*ast.KeyValueExpr)
		val := el
		if kv != nil {
			val = kv.Value
		}
		switch u := typ.Underlying().(type) {
		case *types.Struct:
			if kv != nil {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if f, ok := t.info.Uses[id].(*types.Var); ok {
						t.converted(val, f.Type())
					}
				}
			} else if i < u.NumFields() {
				t.converted(val, u.Field(i).Type())
			}
		case *types.Slice:
			t.converted(val, u.Elem())
		case *types.Array:
			t.converted(val, u.Elem())
		case *types.Map:
			if kv != nil {
				t.converted(kv.Key, u.Key())
			}
			t.converted(val, u.Elem())
		}
	}
}

// needRecv requires the memory that the receiver v of method s.param
// refers to to be in the arena, because a region writes through it at why:
// the receiver of every call, method value and method expression call of
// the method, and every value converted to an interface of which the
// method may be called.
func (t *analyzer) needRecv(tr trace, v *types.Var, s source, why token.Pos) {
	fn := s.param
	if fn == nil {
		return
	}
	srcs := t.facts.recvs[fn]
	if len(srcs) == 0 {
		t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but it is the receiver of %s, which is never called in a way CAPE can follow", v.Name(), t.where(why), fn.Name())
		return
	}
	for _, rs := range srcs {
		traceRecv := func(tr trace) {
			switch {
			case rs.unknown != "":
				t.originErrorf(tr, rs.pos, "%s is written through in the parallel region at %s, but %s receives here %s, which CAPE cannot place in the arena", v.Name(), t.where(why), fn.Name(), rs.unknown)
			case rs.addr:
				t.needOwn(tr, rs.expr, v.Name(), why)
			case rs.deref:
				t.originErrorf(tr, rs.pos, "%s is written through in the parallel region at %s, but %s receives here a copy of the value %s points to, which CAPE cannot follow; call it on a value, or give it a pointer receiver", v.Name(), t.where(why), fn.Name(), t.text(rs.expr))
			default:
				t.needExpr(tr, rs.expr, v.Name(), why)
			}
		}
		if rs.expr != nil && t.calledOn(rs.expr) {
			traceRecv(tr)
		} else {
			// A method value or an interface value may be called
			// after the function that made it has returned.
			traceRecv(tr.escape())
		}
	}
}

// calledOn reports whether the receiver operand e is the receiver of a
// method call right where it stands: x.M(...) or T.M(x, ...).
func (t *translator) calledOn(e ast.Expr) bool {
	switch p := t.parent[e].(type) {
	case *ast.SelectorExpr:
		call, ok := t.parent[p].(*ast.CallExpr)
		return ok && p.X == e && call.Fun == ast.Expr(p)
	case *ast.CallExpr:
		sel, ok := ast.Unparen(p.Fun).(*ast.SelectorExpr)
		if !ok || len(p.Args) == 0 || p.Args[0] != e {
			return false
		}
		s := t.info.Selections[sel]
		return s != nil && s.Kind() == types.MethodExpr
	}
	return false
}
