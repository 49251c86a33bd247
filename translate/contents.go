package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"iter"
	"strings"
)

// Memory in the arena may hold slices and pointers (the rows of a
// [][]float64, the slice fields of a struct), but only into the arena: the
// Go collector does not scan the arena, and every node must see the same
// addresses. So when an allocation whose elements hold references moves to
// the arena, every value that the package stores into such an element or
// field is traced back to its origin too, and placed in the arena or
// refused. Stores are found by type for elements (every a[i] = v, composite
// literal element and append argument of that element type, whatever the
// container) and by field for fields (every x.F = v and composite literal
// key F). The container of an element that a region only reads (the outer
// slice of a [][]float64 whose rows are written) is traced softly: it goes
// to the arena if it can, and stays on the Go heap otherwise, where every
// node's sequential code built the same row headers.

// A store is one value stored into an element or a field somewhere in the
// package.
type store struct {
	pos     token.Pos
	expr    ast.Expr // the value stored
	unknown string   // a store the analysis cannot follow: "is set here by ..."
	into    ast.Expr // the slice or array stored into, for elements
}

// elemStores are the stores of values of one element type.
type elemStores struct {
	typ    types.Type
	stores []store
}

// A trace is the mode of one origin trace (need, needExpr and the functions
// they call), passed down by value: each step that changes the mode passes
// a changed copy to the steps below it, and nothing is left set behind.
type trace struct {
	// stored: tracing a value stored into arena memory (an allocation made
	// in a region is refused then).
	stored bool
	// escaped: the memory traced may have been made outside the calls
	// active at the write (private.go).
	escaped bool
	// found is set in a soft trace, of memory that the regions only read:
	// it goes to the arena if it can, and stays where it is otherwise. The
	// trace's would-be diagnostics are appended to *found, for the caller
	// of softly to keep or discard; they are never reported by themselves.
	found *ErrorList
	// held: the memory traced is what arena memory refers to (a pointer
	// or slice field of a struct the region writes), not memory the
	// region writes through itself; only the diagnostics say so.
	held bool
}

// hold is tr for the memory that arena memory refers to.
func (tr trace) hold() trace {
	tr.held = true
	return tr
}

// soft reports whether tr traces memory that is only read.
func (tr trace) soft() bool { return tr.found != nil }

// escape is tr for memory that may have been made outside the calls active
// at the write.
func (tr trace) escape() trace {
	tr.escaped = true
	return tr
}

// storing is tr for a value stored into memory: into arena memory when
// stored, into a region's private buffer otherwise. Either may hold memory
// made outside the active calls.
func (tr trace) storing(stored bool) trace {
	tr.stored, tr.escaped = stored, true
	return tr
}

// strict is tr for memory that must be in the arena, even within a soft
// trace: its findings are reported.
func (tr trace) strict() trace {
	tr.found = nil
	return tr
}

// modeKey wraps the keys of t.seen in the tracing modes other than the
// plain one, so that a value traced in one mode is traced again in another.
type modeKey struct {
	key                   any
	stored, soft, escaped bool
}

// key is the t.seen key of x in the mode tr.
func (tr trace) key(x any) any {
	if !tr.stored && !tr.soft() && !tr.escaped {
		return x
	}
	return modeKey{x, tr.stored, tr.soft(), tr.escaped}
}

// storesKey is the t.seen key of x for the traces of stores, which are the
// same whether the values are stored or not.
func (tr trace) storesKey(x any) any {
	if !tr.soft() {
		return x
	}
	return modeKey{key: x, soft: true}
}

// softly traces, with do, memory that the regions only read: it goes to
// the arena if it can, and stays where it is otherwise. It returns the
// diagnostics the trace would have reported: the caller decides on them.
func softly(tr trace, do func(trace)) ErrorList {
	var found ErrorList
	tr.found = &found
	do(tr)
	return found
}

// collectStores records every store of a reference (slice, pointer, or
// anything holding one) into an element or a field.
func (t *collector) collectStores() {
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok != token.ASSIGN {
					break
				}
				for i, l := range n.Lhs {
					s := store{pos: l.Pos(), unknown: "is set here from a multi-value expression"}
					if len(n.Lhs) == len(n.Rhs) {
						s = store{pos: n.Rhs[i].Pos(), expr: n.Rhs[i]}
					}
					t.addStore(l, s)
				}
			case *ast.RangeStmt:
				if n.Tok == token.ASSIGN {
					for _, e := range []ast.Expr{n.Key, n.Value} {
						if e != nil {
							t.addStore(e, store{pos: e.Pos(), unknown: "is set here by a range clause"})
						}
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					t.addStore(n.X, store{pos: n.Pos(), unknown: "may be set through a pointer to it taken here"})
				}
			case *ast.CompositeLit:
				t.literalStores(n)
			case *ast.CallExpr:
				t.externalStores(n)
				if b, ok := t.info.Uses[calleeIdent(n)].(*types.Builtin); ok && b.Name() == "append" && len(n.Args) > 1 && !n.Ellipsis.IsValid() {
					if sl, ok := t.info.TypeOf(n.Args[0]).Underlying().(*types.Slice); ok && !pointerFree(sl.Elem()) {
						for _, a := range n.Args[1:] {
							t.addElemStore(sl.Elem(), store{pos: a.Pos(), expr: a})
						}
					}
				}
			}
			return true
		})
	}
}

// literalStores records the elements and fields of a composite literal.
func (t *collector) literalStores(lit *ast.CompositeLit) {
	typ := t.info.TypeOf(lit)
	if typ == nil {
		return
	}
	if p, ok := typ.Underlying().(*types.Pointer); ok { // &T{} elided in a literal
		typ = p.Elem()
	}
	switch u := typ.Underlying().(type) {
	case *types.Slice, *types.Array:
		elem := u.(interface{ Elem() types.Type }).Elem()
		if pointerFree(elem) {
			return
		}
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Value
			}
			t.addElemStore(elem, store{pos: e.Pos(), expr: e})
		}
	case *types.Struct:
		for i, e := range lit.Elts {
			var fld *types.Var
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					fld, _ = t.info.Uses[id].(*types.Var)
				}
				e = kv.Value
			} else if i < u.NumFields() {
				fld = u.Field(i)
			}
			if fld != nil && !pointerFree(fld.Type()) {
				t.stores.fields[fld.Origin()] = append(t.stores.fields[fld.Origin()], store{pos: e.Pos(), expr: e})
			}
		}
	}
}

// addStore records s if lhs is an element or a field holding references.
func (t *collector) addStore(lhs ast.Expr, s store) {
	switch x := ast.Unparen(lhs).(type) {
	case *ast.IndexExpr:
		typ := t.info.TypeOf(x)
		if typ == nil || pointerFree(typ) {
			return
		}
		s.into = x.X
		switch u := t.info.TypeOf(x.X).Underlying().(type) {
		case *types.Slice, *types.Array:
			t.addElemStore(typ, s)
		case *types.Pointer:
			if _, ok := u.Elem().Underlying().(*types.Array); ok {
				t.addElemStore(typ, s)
			}
		}
	case *ast.SelectorExpr:
		sel := t.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal {
			return
		}
		fld := sel.Obj().(*types.Var)
		if !pointerFree(fld.Type()) {
			t.stores.fields[fld.Origin()] = append(t.stores.fields[fld.Origin()], s)
		}
	}
}

func (t *collector) addElemStore(typ types.Type, s store) {
	for _, es := range t.stores.elems {
		if types.Identical(es.typ, typ) {
			es.stores = append(es.stores, s)
			return
		}
	}
	t.stores.elems = append(t.stores.elems, &elemStores{typ: typ, stores: []store{s}})
}

// needContents requires every reference that memory of type typ, placed in
// the arena, may hold to point into the arena. It reports at why (the write
// in a region that needs the memory; site is where the memory is made)
// what cannot live there, and returns false then.
// needHeld requires the memory that the fields of a struct of type typ
// refer to to be in the arena: code of another package that writes
// through a pointer to the struct, or through a copy of it (a value
// receiver), may write there, whether the struct itself is shared or the
// iteration's own (v := &la.M{Data: shared}, made in the loop).
func (t *analyzer) needHeld(tr trace, typ types.Type, name string, why token.Pos) {
	st, ok := typ.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		switch f.Type().Underlying().(type) {
		case *types.Slice, *types.Pointer:
			t.needField(tr, f, name, why)
		case *types.Struct:
			t.needHeld(tr, f.Type(), name, why)
		case *types.Basic:
			// a copy, or a string, which no write changes
		default:
			t.needContents(tr, f.Type(), name, why, why)
		}
	}
}

func (t *analyzer) needContents(tr trace, typ types.Type, name string, why, site token.Pos) bool {
	return t.contents(tr.strict(), typ, name, why, site)
}

func (t *analyzer) contents(tr trace, typ types.Type, name string, why, site token.Pos) bool {
	refuse := func(what string) bool {
		t.errorf(why, "%s is written in the parallel region, but its memory (made at %s) holds %s, which cannot live in the arena", name, t.where(site), what)
		return false
	}
	if tp, ok := typ.(*types.TypeParam); ok {
		if plainParam(tp) || t.plainInstances(tp) {
			return true // every type it may be, or is, holds no reference (~float64 | ~int)
		}
		return refuse("values of type parameter " + tp.Obj().Name() + " (constrain it to number types, ~float64 | ~int, or instantiate the function or type with a concrete type)")
	}
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		switch u.Kind() {
		case types.String, types.UntypedString:
			return refuse("strings (a string's bytes are on the Go heap: write numbers in the region and make the strings after it; keep the strings of records in a []string of their own, indexed alike)")
		case types.UnsafePointer:
			return refuse("unsafe.Pointer values")
		}
		return true
	case *types.Array:
		return t.contents(tr, u.Elem(), name, why, site)
	case *types.Struct:
		ok := true
		for i := range u.NumFields() {
			f := u.Field(i)
			switch f.Type().Underlying().(type) {
			case *types.Slice, *types.Pointer:
				t.needField(tr.hold(), f, name, why)
			default:
				ok = t.contents(tr, f.Type(), name, why, site) && ok
			}
		}
		return ok
	case *types.Slice, *types.Pointer:
		t.needElems(tr, typ, name, why)
		return true
	case *types.Map:
		return refuse("maps")
	case *types.Chan:
		return refuse("channels")
	case *types.Signature:
		return refuse("function values")
	case *types.Interface:
		return refuse("interface values")
	}
	return refuse(typ.String() + " values")
}

// plainInstances reports whether every instantiation in the package of the
// generic function or type that declares tp gives it a type that holds no
// reference (mk[float64](n) of func mk[T any](n int) []T), and there is
// one.
func (t *translator) plainInstances(tp *types.TypeParam) bool {
	found := false
	for id, inst := range t.info.Instances {
		var params *types.TypeParamList
		switch o := t.info.Uses[id].(type) {
		case *types.Func:
			if sig, ok := o.Origin().Type().(*types.Signature); ok {
				params = sig.TypeParams()
			}
		case *types.TypeName:
			if n, ok := o.Type().(*types.Named); ok {
				params = n.Origin().TypeParams()
			}
		}
		for i := range params.Len() {
			if params.At(i) != tp {
				continue
			}
			if i >= inst.TypeArgs.Len() || !pointerFree(inst.TypeArgs.At(i)) {
				return false
			}
			found = true
		}
	}
	return found
}

// plainParam reports whether the constraint of tp lists the types tp may
// be (a union such as ~float64 | ~int, directly or embedded) and each is a
// number or a boolean: a value of any of them holds no reference.
func plainParam(tp *types.TypeParam) bool {
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	return ok && ifaceBasics(iface, 0, plainBasic) != nil
}

// plainBasic reports whether b is a number or a boolean type.
func plainBasic(b *types.Basic) bool { return b.Info()&(types.IsNumeric|types.IsBoolean) != 0 }

// embeddedTerms yields, for each element embedded in iface, the types it
// lists: a union's terms, else the element itself.
func embeddedTerms(iface *types.Interface) iter.Seq[[]types.Type] {
	return func(yield func([]types.Type) bool) {
		for i := range iface.NumEmbeddeds() {
			var terms []types.Type
			switch e := iface.EmbeddedType(i).(type) {
			case *types.Union:
				for k := range e.Len() {
					terms = append(terms, e.Term(k).Type())
				}
			default:
				terms = append(terms, e)
			}
			if !yield(terms) {
				return
			}
		}
	}
}

// needElems requires every value of type typ stored into an element of a
// slice or array to be arena memory.
// Stores in generic code (s[i] = v with v of a type parameter's type) may
// store a value of typ too, and are traced as well.
func (t *analyzer) needElems(tr trace, typ types.Type, name string, why token.Pos) {
	for _, es := range t.stores.elems {
		if !types.Identical(es.typ, typ) && !mayInstantiate(es.typ, typ) || t.seen[tr.storesKey(es)] {
			continue
		}
		t.seen[tr.storesKey(es)] = true
		t.traceStores(tr, es.stores, name, "an element of type "+es.typ.String(), why)
	}
}

// mayInstantiate reports whether the type gen of generic code may stand
// for typ: it holds a type parameter, and where it is one, typ satisfies
// its constraint (T ~float64 | ~int never stands for a []float64).
func mayInstantiate(gen, typ types.Type) bool {
	if tp, ok := gen.(*types.TypeParam); ok {
		iface, ok := tp.Constraint().Underlying().(*types.Interface)
		return !ok || types.Satisfies(typ, iface)
	}
	return hasTypeParam(gen)
}

// hasTypeParam reports whether typ is or holds a type parameter.
func hasTypeParam(typ types.Type) bool {
	switch u := typ.(type) {
	case *types.TypeParam:
		return true
	case *types.Slice:
		return hasTypeParam(u.Elem())
	case *types.Array:
		return hasTypeParam(u.Elem())
	case *types.Pointer:
		return hasTypeParam(u.Elem())
	case *types.Named:
		for i := range u.TypeArgs().Len() {
			if hasTypeParam(u.TypeArgs().At(i)) {
				return true
			}
		}
	}
	return false
}

// needField requires every value stored into field f to be arena memory.
func (t *analyzer) needField(tr trace, f *types.Var, name string, why token.Pos) {
	f = f.Origin()
	if t.seen[tr.storesKey(f)] {
		return
	}
	t.seen[tr.storesKey(f)] = true
	if f.Pkg() != t.p.types && t.imagePixels(tr, f, name, why) {
		return
	}
	if f.Pkg() != t.p.types {
		// A field of another package that it never sets in code the
		// program may run holds what this package stores into it.
		at, copies, ok := t.foreign.fieldStore(f, t.funcsOf(f.Pkg()))
		switch {
		case ok && at == token.NoPos:
			t.traceStores(tr, t.stores.fields[f], name, "field "+f.Name(), why)
			for _, c := range copies {
				t.needField(tr, c, name, why) // g.Cur = g.Next: what Next holds
			}
		case ok:
			t.originErrorf(tr, why, "%s is written through in the parallel region, but its memory comes from field %s of package %s, which that package sets (%s): CAPE places only memory made in this package; make the value here (a composite literal with %s: make(...)), and call no function of %s that sets the field",
				name, f.Name(), f.Pkg().Name(), t.foreignWhere(at), f.Name(), f.Pkg().Name())
		default:
			t.originErrorf(tr, why, "%s is written through in the parallel region, but its memory comes from field %s of package %s, which CAPE cannot see being set", name, f.Name(), f.Pkg().Name())
		}
		return
	}
	t.traceStores(tr, t.stores.fields[f], name, "field "+f.Name(), why)
}

func (t *analyzer) traceStores(tr trace, stores []store, name, what string, why token.Pos) {
	for _, s := range stores {
		if s.unknown != "" {
			t.originErrorf(tr, s.pos, "%s is written through in the parallel region at %s, but %s %s, which CAPE cannot follow into the arena", name, t.where(why), what, s.unknown)
			continue
		}
		// The value stored may be in code far from the write: name both.
		valueName := what + " (as in " + name + ")"
		// Stored in a region's private buffer (not stored), the value may
		// be memory made in the region too.
		t.needExpr(tr.storing(!t.privateMemory(s.into)), s.expr, valueName, why)
	}
}

// privateMemory reports whether e is a variable declared in a parallel
// region whose every value is memory made in that region: a private buffer
// of one iteration or section, which may hold references to memory made in
// the region. (Were it stored in shared memory, the stored value would be
// traced to the same allocations, and refused there.) What it holds is
// still traced: it may be shared memory, written through the buffer.
func (t *translator) privateMemory(e ast.Expr) bool {
	if e == nil {
		return false
	}
	v := t.varOf(e)
	if v == nil {
		return false
	}
	for _, r := range t.regions {
		if r.body == nil || !within(v.Pos(), r.body) {
			continue
		}
		for _, s := range t.facts.sources[v] {
			if s.zero {
				continue
			}
			if s.expr == nil || !within(s.expr.Pos(), r.body) {
				return false
			}
			switch x := ast.Unparen(s.expr).(type) {
			case *ast.CallExpr:
				if b, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); !ok || b.Name() != "make" && b.Name() != "new" {
					return false
				}
			case *ast.CompositeLit:
			default:
				return false
			}
		}
		return true
	}
	return false
}

// externalStores records, for a call of a function of another package, that
// it may store anything into the elements and fields reachable from its
// slice and pointer arguments (json.Unmarshal(b, &cfg) sets cfg's slice
// fields to memory on the Go heap). fmt's and log's printing functions only
// read their arguments, and so do those whose source shows it (paramUse).
func (t *collector) externalStores(call *ast.CallExpr) {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	fn, ok := t.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg() == t.p.types {
		return
	}
	if p := fn.Pkg().Path(); (p == "fmt" || p == "log") && (strings.Contains(fn.Name(), "rint") || fn.Name() == "Errorf" || strings.HasPrefix(fn.Name(), "Fatal") || strings.HasPrefix(fn.Name(), "Panic")) {
		return
	}
	if p := fn.Pkg().Path(); (p == "image/png" || p == "image/jpeg" || p == "image/gif") && fn.Name() == "Encode" || p == "image/draw" {
		return // they read the image, or write its pixels, and set no reference
	}
	var seen []types.Type
	sig, _ := fn.Type().(*types.Signature)
	for i, a := range call.Args {
		if sig != nil && t.foreign.paramUse(fn, paramIndex(sig, i)).known {
			continue // its source shows it sets no reference through a
		}
		s := store{pos: a.Pos(), unknown: "may be set here by " + fn.Pkg().Name() + "." + fn.Name()}
		t.escape(t.info.TypeOf(a), s, &seen)
	}
}

// escape records s as a store into the memory that a value of type typ
// refers to, and into what that memory refers to in turn.
func (t *collector) escape(typ types.Type, s store, seen *[]types.Type) {
	if typ == nil {
		return
	}
	switch u := typ.Underlying().(type) {
	case *types.Pointer:
		t.escapeInto(u.Elem(), s, seen)
	case *types.Slice:
		t.escapeInto(u.Elem(), s, seen)
	}
}

// escapeInto records s as a store into memory of type typ.
func (t *collector) escapeInto(typ types.Type, s store, seen *[]types.Type) {
	if pointerFree(typ) {
		return
	}
	for _, x := range *seen {
		if types.Identical(x, typ) {
			return
		}
	}
	*seen = append(*seen, typ)
	switch u := typ.Underlying().(type) {
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if pointerFree(f.Type()) {
				continue
			}
			switch f.Type().Underlying().(type) {
			case *types.Slice, *types.Pointer:
				t.stores.fields[f.Origin()] = append(t.stores.fields[f.Origin()], s)
				t.escape(f.Type(), s, seen)
			default:
				t.escapeInto(f.Type(), s, seen)
			}
		}
	case *types.Array:
		t.escapeInto(u.Elem(), s, seen)
	case *types.Slice, *types.Pointer:
		t.addElemStore(typ, s)
		t.escape(typ, s, seen)
	}
}
