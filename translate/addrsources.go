package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// A slice or pointer variable may be given its value through its address:
// a decoder handed &vals (json.Unmarshal), the program's own out-parameter
// helper (load(&vals, n) storing *dst = make(...)), a pointer to it kept
// in a local (p := &a; *p = ...), or a pointer method of a named slice
// type re-making its receiver (v.Resize(n)). Those values are the
// variable's sources too: without them the memory a region writes through
// the variable stayed on the Go heap, and the slaves' writes were lost.

// addressSources adds to the sources of every variable of slice or pointer
// type whose address the package takes the values stored through that
// address where the analysis can follow it (the package's own functions
// and locals), and an unknown source where it cannot.
func (t *collector) addressSources() {
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.UnaryExpr:
				if x.Op != token.AND {
					break
				}
				if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
					if v := t.varOf(id); v != nil && sliceOrPointer(v.Type()) {
						t.addressOf(v, x)
					}
				}
			case *ast.CallExpr:
				t.implicitAddress(x)
			case *ast.SelectorExpr:
				t.methodValue(x)
			}
			return true
		})
	}
}

// sliceOrPointer reports whether typ is a slice or a pointer type.
func sliceOrPointer(typ types.Type) bool {
	switch typ.Underlying().(type) {
	case *types.Slice, *types.Pointer:
		return true
	}
	return false
}

// addressOf records what is stored through the address of v that addr
// takes, by where the address goes.
func (t *collector) addressOf(v *types.Var, addr *ast.UnaryExpr) {
	unknown := func(what string) {
		t.facts.sources[v] = append(t.facts.sources[v], source{pos: addr.Pos(), unknown: what})
	}
	at := t.outerParens(addr)
	switch p := t.parent[at].(type) {
	case *ast.CallExpr:
		idx := -1
		for i, a := range p.Args {
			if a == at {
				idx = i
			}
		}
		if idx < 0 {
			unknown(fmt.Sprintf("a store through its address, taken at %s", t.where(addr.Pos())))
			return
		}
		if fn := t.staticCallee(p); fn != nil && t.facts.decls[fn] != nil && t.facts.decls[fn].Body != nil {
			d, sig := t.facts.decls[fn], fn.Type().(*types.Signature)
			if k := paramIndex(sig, idx); k >= 0 {
				if param := paramVar(t.info, d, k); param != nil {
					t.storesThrough(v, param, d.Body, addr.Pos(), fmt.Sprintf("%s, given its address at %s", fn.Name(), t.where(addr.Pos())))
					return
				}
			}
		}
		unknown(fmt.Sprintf("%s, given its address at %s", t.text(p.Fun), t.where(addr.Pos())))
	case *ast.AssignStmt:
		if len(p.Lhs) == len(p.Rhs) {
			for i, r := range p.Rhs {
				if r == at {
					if q := t.varOf(p.Lhs[i]); q != nil {
						t.storesThrough(v, q, funcBody(t.enclosing(p, isFunc)), addr.Pos(), fmt.Sprintf("a store through %s, its address taken at %s", q.Name(), t.where(addr.Pos())))
						return
					}
				}
			}
		}
		unknown(fmt.Sprintf("a store through its address, taken at %s", t.where(addr.Pos())))
	default:
		unknown(fmt.Sprintf("a store through its address, taken at %s", t.where(addr.Pos())))
	}
}

// implicitAddress records, for call of a pointer method on an addressable
// variable of a named slice or pointer type (v.Resize(n) with func (v
// *Vec) Resize), what the method stores through its receiver.
func (t *collector) implicitAddress(call *ast.CallExpr) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	s := t.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal || !pointerRecv(s.Obj().(*types.Func)) {
		return
	}
	if path, ok := promotedPath(t.info.TypeOf(sel.X), s.Index()); ok {
		// s.Resize(n) with Resize promoted from an embedded Vec: the
		// method gets &s.Vec.
		if path != "" && t.remakesRecv(s.Obj()) {
			t.remadePlace(call, sel, t.text(sel.X)+path)
		}
		return
	}
	if _, ptr := t.info.TypeOf(sel.X).Underlying().(*types.Pointer); ptr || !sliceOrPointer(t.info.TypeOf(sel.X)) {
		return // the method gets the operand's value (a pointer), not its address
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		// s.X.Resize(n), vs[1].Resize(n): a place the sources of
		// variables do not cover.
		if t.remakesRecv(s.Obj()) {
			t.remadePlace(call, sel, t.text(sel.X))
		}
		return
	}
	if v := t.varOf(id); v != nil {
		t.methodOn(v, sel, call.Pos(), fmt.Sprintf("%s, called on it at %s", t.text(sel), t.where(call.Pos())))
	}
}

// remadePlace refuses call, of the pointer method sel that gives place
// (not a variable: a field, an element) a new value through its address.
func (t *collector) remadePlace(call *ast.CallExpr, sel *ast.SelectorExpr, place string) {
	name := sel.Sel.Name
	t.errorf(call.Pos(), "%s gives %s a new value through its address, which CAPE follows only for a variable (v.%s(...)): call it on a variable and assign that (x := %s; x.%s(...); %s = x)",
		t.text(sel), place, name, place, name, place)
}

// promotedPath returns, for a method selected with the index path index
// on an operand of type typ, the fields (".Vec") through which the method
// is promoted to typ when the method gets the address of an embedded
// field of the operand itself (not through a pointer), and whether it is
// promoted at all.
func promotedPath(typ types.Type, index []int) (string, bool) {
	if len(index) < 2 {
		return "", false
	}
	path := ""
	for _, k := range index[:len(index)-1] {
		if p, ok := typ.Underlying().(*types.Pointer); ok {
			if path == "" {
				// (&s).Resize through a pointer operand: the field's
				// address is not a variable's either.
				typ = p.Elem()
			} else {
				return "", true // through an embedded pointer: not a place of the operand's
			}
		}
		st, ok := typ.Underlying().(*types.Struct)
		if !ok {
			return "", true
		}
		f := st.Field(k)
		path += "." + f.Name()
		typ = f.Type()
	}
	if _, ptr := typ.Underlying().(*types.Pointer); ptr {
		return "", true // the method gets the embedded pointer's value
	}
	return path, true
}

// methodOn adds to v's sources what the pointer method sel (called with
// v's address, at pos) stores through its receiver; an unknown source if
// CAPE cannot read the method.
func (t *collector) methodOn(v *types.Var, sel *ast.SelectorExpr, pos token.Pos, what string) {
	fn, _ := t.info.Selections[sel].Obj().(*types.Func)
	d := t.facts.decls[fn]
	if d == nil || d.Body == nil {
		t.facts.sources[v] = append(t.facts.sources[v], source{pos: pos, unknown: what})
		return
	}
	if recv := paramVar(t.info, d, -1); recv != nil { // unnamed: it cannot replace v
		t.storesThrough(v, recv, d.Body, pos, what)
	}
}

// remakesRecv reports whether the method o assigns its pointer receiver's
// target whole (*v = ...), or CAPE cannot read it (another package's).
func (t *collector) remakesRecv(o types.Object) bool {
	fn, _ := o.(*types.Func)
	d := t.facts.decls[fn]
	if d == nil || d.Body == nil {
		return true
	}
	recv := paramVar(t.info, d, -1)
	found := false
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if st, ok := ast.Unparen(l).(*ast.StarExpr); ok && t.varOf(st.X) == recv && recv != nil {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// methodValue adds an unknown source to each variable of which a pointer
// method is taken as a value (f := v.Resize): the method may replace the
// variable through the address the value holds, where CAPE cannot see.
func (t *collector) methodValue(sel *ast.SelectorExpr) {
	s := t.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal || !pointerRecv(s.Obj().(*types.Func)) {
		return
	}
	if call, ok := t.parent[sel].(*ast.CallExpr); ok && ast.Unparen(call.Fun) == sel {
		return // called: implicitAddress
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return
	}
	if v := t.varOf(id); v != nil && sliceOrPointer(v.Type()) {
		if _, ptr := v.Type().Underlying().(*types.Pointer); !ptr {
			t.facts.sources[v] = append(t.facts.sources[v], source{pos: sel.Pos(), unknown: fmt.Sprintf("the method value %s, which holds its address (%s)", t.text(sel), t.where(sel.Pos()))})
		}
	}
}

// storesThrough adds to v's sources the values body stores through the
// pointer p to it (*p = x), and an unknown source, described by what, if
// p goes anywhere else than a dereference (handed on, copied, returned).
func (t *collector) storesThrough(v, p *types.Var, body ast.Node, addr token.Pos, what string) {
	if body == nil {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || t.info.Uses[id] != p {
			return true
		}
		at := t.outerParens(id)
		star, ok := t.parent[at].(*ast.StarExpr)
		if !ok {
			if sel, isSel := t.parent[at].(*ast.SelectorExpr); isSel && sel.X == at {
				s := t.info.Selections[sel]
				switch {
				case s != nil && s.Kind() == types.MethodVal && types.IsInterface(s.Recv()):
					// r.Resize(n) on an interface holding p: which
					// method runs CAPE cannot tell.
					t.facts.sources[v] = append(t.facts.sources[v], source{pos: addr, unknown: what})
				case s != nil && s.Kind() == types.MethodVal && pointerRecv(s.Obj().(*types.Func)):
					// p.M() with M's receiver *T: M gets p itself.
					t.methodOn(v, sel, addr, what)
				}
				return true // p.f: a field of what p points to, not p's target replaced
			}
			if ix, isIx := t.parent[at].(*ast.IndexExpr); isIx && ix.X == at {
				return true // p[i] of a pointer to an array
			}
			t.facts.sources[v] = append(t.facts.sources[v], source{pos: addr, unknown: what})
			return true
		}
		as, ok := t.parent[star].(*ast.AssignStmt)
		if !ok {
			return true // *p read, indexed or ranged over
		}
		for i, l := range as.Lhs {
			if ast.Unparen(l) != star {
				continue
			}
			switch {
			case as.Tok != token.ASSIGN:
				t.facts.sources[v] = append(t.facts.sources[v], source{pos: addr, unknown: what})
			case len(as.Lhs) == len(as.Rhs):
				t.facts.sources[v] = append(t.facts.sources[v], source{pos: as.Rhs[i].Pos(), expr: as.Rhs[i]})
			default:
				t.facts.sources[v] = append(t.facts.sources[v], source{pos: addr, unknown: what})
			}
		}
		return true
	})
}

// outerParens returns the outermost of the parentheses around n, or n.
func (t *translator) outerParens(n ast.Node) ast.Node {
	for {
		p, ok := t.parent[n].(*ast.ParenExpr)
		if !ok {
			return n
		}
		n = p
	}
}
