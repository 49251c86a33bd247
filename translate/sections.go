package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// Bernstein's conditions on the elements sections write: a section that
// writes an element of a shared array, slice or struct field at a
// constant index (a[1] = 5, sl[3] = v, s.arr[2] = 6) and another section
// that uses the same element, or one it cannot tell apart, depend on each
// other (res[0] in one section, res[1] in another do not). A pointer
// variable defined once as the address of a variable (p := &s) stands for
// that variable: a write through it is an assignment of the variable.

// anyElem is the elemKey of a use that may reach any element; aliasElem
// the key of a write through an alias (p.f = v with p := &s), which
// assigns the variable, or its field, as if by name.
const (
	anyElem   = "*"
	aliasElem = "&"
	heldElem  = "=" // before a constant held in a variable (k := 1; a[k])
)

// sectionUse records the use id of the shared variable v, with access a,
// by section sec: the element it uses, and the element it writes (other
// than an assignment of the whole variable, which checkOwnWrite records);
// through an alias (aliasOf), the aliased variable's too.
func (t *translator) sectionUse(u *regionUses, id *ast.Ident, v *types.Var, a access, sec int) {
	sv := t.sectionVar(id, v)
	if t.headerOnly(id) {
		return // len(s), cap(s): no element (assigning s whole is checkOwnWrite's)
	}
	if t.calleeFieldUses(u, id, v, sec) {
		return // s.Heat(): the fields the method reads and writes
	}
	key := t.elemKey(u.r, id, sv)
	u.useElem(sv, sec, key)
	readOnly := t.readOnlyArg(u.r, id)
	if a.write && (a.indexed || a.loc != locOwn) && !readOnly {
		u.writeElem(sv, sec, key, id.Pos())
	} else if readOnly || !a.write && t.elementRead(id, sv) {
		u.readElem(sv, sec, id.Pos())
	}
	if x := t.aliasOf(v); x != (secVar{}) {
		if x.field == "" {
			x.field = sv.field // p.a with p := &s: s.a
		}
		u.useElem(x, sec, anyElem)
		if a.write {
			u.writeElem(x, sec, aliasElem, id.Pos())
		}
	}
}

// sectionVar is secVarOf, also telling apart the fields of the struct a
// pointer variable points to (s.Min and s.Max through s *Stats).
func (t *translator) sectionVar(id *ast.Ident, v *types.Var) secVar {
	ptr, ok := v.Type().Underlying().(*types.Pointer)
	if !ok {
		return t.secVarOf(id, v)
	}
	if _, ok := ptr.Elem().Underlying().(*types.Struct); !ok {
		return secVar{v: v}
	}
	return secVar{v: v, field: t.selectedField(id)}
}

// headerOnly reports whether id is the argument of len or cap.
func (t *translator) headerOnly(id *ast.Ident) bool {
	call, ok := t.parent[id].(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || call.Args[0] != ast.Expr(id) {
		return false
	}
	b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
	return ok && (b.Name() == "len" || b.Name() == "cap")
}

// readOnlyArg reports whether id is an argument of a call of a function of
// the package whose parameter it is bound to (calleeArgs) is only read:
// indexed, ranged over, measured, never assigned through, passed on or its
// address taken.
func (t *translator) readOnlyArg(r *region, id *ast.Ident) bool {
	call, ok := t.parent[id].(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := t.staticCallee(call)
	d := t.facts.decls[fn]
	if fn == nil || d == nil || d.Body == nil {
		return false
	}
	args, _ := t.calleeArgs(call, d, d.Type.Params, func(v *types.Var) bool { return within(v.Pos(), r.stmt) })
	var param *types.Var
	for p, a := range args {
		if a == ast.Expr(id) {
			param = p
		}
	}
	if param == nil {
		return false
	}
	written := false
	ast.Inspect(d.Body, func(n ast.Node) bool {
		pid, ok := n.(*ast.Ident)
		if !ok || written || t.info.Uses[pid] != param {
			return !written
		}
		written = t.access(pid).write // assigned through, handed on, its address taken
		return !written
	})
	return !written
}

// calleeFieldUses records, where id (of the shared variable v, a pointer
// to a struct) is the receiver or an argument of a call of a function of
// the package that uses its parameter only to select fields (s.Heat()
// doing s.T[0] = 300), the fields it reads and writes, as if section sec
// used them by name; it reports whether it did.
func (t *translator) calleeFieldUses(u *regionUses, id *ast.Ident, v *types.Var, sec int) bool {
	ptr, ok := v.Type().Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	if _, ok := ptr.Elem().Underlying().(*types.Struct); !ok {
		return false
	}
	param, body := t.boundParam(id)
	if param == nil {
		return false
	}
	type fieldUse struct {
		field string
		a     access
		pos   token.Pos
	}
	var uses []fieldUse
	plain := true
	ast.Inspect(body, func(n ast.Node) bool {
		pid, ok := n.(*ast.Ident)
		if !ok || !plain || t.info.Uses[pid] != param {
			return plain
		}
		sel, ok := t.parent[pid].(*ast.SelectorExpr)
		if s := t.info.Selections[sel]; !ok || s == nil || s.Kind() != types.FieldVal {
			plain = false // handed on, a method called on it, or replaced
			return false
		}
		a := t.access(pid)
		if !a.write && !t.elementRead(pid, secVar{field: sel.Sel.Name}) {
			plain = false // x := s.T: a view of the field, which may be written through
			return false
		}
		uses = append(uses, fieldUse{sel.Sel.Name, a, id.Pos()})
		return true
	})
	if !plain {
		return false
	}
	for _, fu := range uses {
		sv := secVar{v: v, field: fu.field}
		u.useElem(sv, sec, anyElem)
		if fu.a.write {
			u.writeElem(sv, sec, anyElem, fu.pos)
		} else {
			u.readElem(sv, sec, fu.pos)
		}
	}
	return true
}

// elementRead reports whether the use id of sv (of its field sv.field)
// reads an element (T[0], s.T[k], len(T)): not a view of it (part :=
// data[q:], x := s.T), through which the section may write it.
func (t *translator) elementRead(id *ast.Ident, sv secVar) bool {
	var n ast.Node = t.outerParens(id)
	if sv.field != "" {
		sel, ok := t.parent[n].(*ast.SelectorExpr)
		if !ok {
			return false
		}
		n = t.outerParens(sel)
	}
	if t.headerOnly(id) {
		return true
	}
	if call, ok := t.parent[n].(*ast.CallExpr); ok && len(call.Args) == 1 && call.Args[0] == n {
		if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return true
		}
	}
	ix, ok := t.parent[n].(*ast.IndexExpr)
	return ok && ix.X == n && pointerFree(t.info.TypeOf(ix))
}

// boundParam returns, where id is the receiver or an argument of a static
// call of a function of the package with a body, the parameter it is
// bound to, never assigned there (handedParam), and the function's body;
// nil otherwise.
func (t *translator) boundParam(id *ast.Ident) (*types.Var, *ast.BlockStmt) {
	at := t.outerParens(id)
	call, _ := t.parent[at].(*ast.CallExpr)
	if sel, ok := t.parent[at].(*ast.SelectorExpr); ok && sel.X == at {
		call, _ = t.parent[t.outerParens(sel)].(*ast.CallExpr)
	}
	p := t.handedParam(call, id)
	if p == nil {
		return nil, nil
	}
	return p, t.facts.decls[t.staticCallee(call)].Body
}

// readElem records that section sec reads sv (an element, or what it
// refers to), first at pos.
func (u *regionUses) readElem(sv secVar, sec int, pos token.Pos) {
	if u.reads[sv] == nil {
		u.reads[sv] = map[int]token.Pos{}
	}
	if _, ok := u.reads[sv][sec]; !ok {
		u.reads[sv][sec] = pos
	}
}

// useElem records that section sec uses the element key of sv.
func (u *regionUses) useElem(sv secVar, sec int, key string) {
	if u.secs[sv] == nil {
		u.secs[sv] = map[int]map[string]bool{}
	}
	if u.secs[sv][sec] == nil {
		u.secs[sv][sec] = map[string]bool{}
	}
	u.secs[sv][sec][key] = true
}

// writeElem records that section sec writes the element key of sv, first
// at pos.
func (u *regionUses) writeElem(sv secVar, sec int, key string, pos token.Pos) {
	if u.elems[sv] == nil {
		u.elems[sv] = map[int]map[string]token.Pos{}
	}
	if u.elems[sv][sec] == nil {
		u.elems[sv][sec] = map[string]token.Pos{}
	}
	if _, ok := u.elems[sv][sec][key]; !ok {
		u.elems[sv][sec][key] = pos
	}
}

// elemKey names the element of sv that the use id selects: the constant
// index of an index expression applied to it ("3"; also through a variable
// of r's function defined once as a constant and never assigned or
// pointed to, k := 1), or anyElem.
func (t *translator) elemKey(r *region, id *ast.Ident, sv secVar) string {
	n := ast.Node(id)
	if sv.field != "" {
		n = t.parent[id] // the field selector
	}
	ix, ok := t.parent[n].(*ast.IndexExpr)
	if !ok || ix.X != n {
		return anyElem
	}
	if tv, ok := t.info.Types[ix.Index]; ok && tv.Value != nil {
		return tv.Value.ExactString()
	}
	if k, ok := ast.Unparen(ix.Index).(*ast.Ident); ok && r.fn != nil {
		v := t.varOf(k)
		if v == nil || !within(v.Pos(), r.fn) || t.assignedInFunc(r.fn)[v] {
			return anyElem
		}
		if src := t.facts.sources[v]; len(src) == 1 && src[0].expr != nil {
			if tv, ok := t.info.Types[src[0].expr]; ok && tv.Value != nil {
				return heldElem + tv.Value.ExactString()
			}
		}
	}
	return anyElem
}

// assignedInFunc is assignedIn(fn), computed once per function.
func (t *translator) assignedInFunc(fn ast.Node) map[*types.Var]bool {
	if t.assigned == nil {
		t.assigned = map[ast.Node]map[*types.Var]bool{}
	}
	if t.assigned[fn] == nil {
		t.assigned[fn] = assignedIn(t, fn)
	}
	return t.assigned[fn]
}

// aliasOf returns the variable (or field) that v, a pointer, stands for
// when v's only value is its address (p := &s, var p = &s.f, p := &a[1]),
// or a copy of such a pointer (q := p); else the zero secVar.
func (t *translator) aliasOf(v *types.Var) secVar {
	for range 4 {
		src := t.facts.sources[v]
		if len(src) != 1 || src[0].expr == nil {
			return secVar{}
		}
		e := ast.Unparen(src[0].expr)
		if id, ok := e.(*ast.Ident); ok {
			if v = t.varOf(id); v == nil {
				return secVar{}
			}
			continue // q := p: p's
		}
		amp, ok := e.(*ast.UnaryExpr)
		if !ok || amp.Op != token.AND {
			return secVar{}
		}
		switch x := ast.Unparen(amp.X).(type) {
		case *ast.Ident:
			if w := t.varOf(x); w != nil {
				return secVar{v: w}
			}
		case *ast.SelectorExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				if w := t.varOf(id); w != nil {
					return t.secVarOf(id, w)
				}
			}
		case *ast.IndexExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				if w := t.varOf(id); w != nil {
					return secVar{v: w} // an element: the array
				}
			}
		}
		return secVar{}
	}
	return secVar{}
}

// elemsMeet reports whether a section writing the element key and one using
// the elements ukeys depend on each other, as far as the translator can
// tell: a write through an alias meets every use; a write at a constant
// index meets a use at the same index or at one it cannot tell; a write
// at an index it cannot tell meets nothing (sections writing halves of an
// array through loops are the common case; the merge reports two writes
// of one byte with different values). A constant held in a variable (k :=
// 1; a[k]) is the constant's element, but a write there, not quite a
// constant index, meets only the uses of that element.
func elemsMeet(key string, ukeys map[string]bool) bool {
	switch key {
	case aliasElem:
		return true
	case anyElem:
		return false
	}
	c := strings.TrimPrefix(key, heldElem)
	return ukeys[c] || ukeys[heldElem+c] || c == key && ukeys[anyElem]
}

// A found is a dependence between sections: ws writes the element key of
// sv (at pos), which section other uses.
type found struct {
	pos       token.Pos
	sv        secVar
	key       string
	ws, other int
}

// readAfterWrite finds the sections that read a variable (or field)
// which an earlier section writes at elements it cannot tell apart, and
// which they do not write themselves: heat(T) in one section, pressure(P,
// T) reading T in a later one (go run's second section sees the first's
// writes, a node running it alone does not). Where several sections
// write one (the halves of an array), it has the runtime check the bytes
// they change (r.updates): two sections updating one element (inc(a) in
// both) then stop the job instead of adding up once.
func (t *translator) readAfterWrite(u *regionUses) []found {
	var out []found
	for sv, bySec := range u.elems {
		unknown := 0
		for _, keys := range bySec {
			if _, ok := keys[anyElem]; ok {
				unknown++
			}
		}
		if len(bySec) > 1 && unknown > 0 {
			u.r.updates = true // (at constant indices, bernsteinElems's)
		}
		if u.r.shared[sv.v] {
			continue // listed in shared: the user's intent
		}
		for ws, keys := range bySec {
			pos, any := keys[anyElem]
			if !any {
				continue // a constant index: bernsteinElems's
			}
			for rv, reads := range u.reads {
				if rv.v != sv.v || sv.field != "" && rv.field != "" && rv.field != sv.field {
					continue
				}
				for rs := range reads {
					if rs > ws && !u.writesIn(rv, rs) {
						out = append(out, found{pos, sv, aliasElem, ws, rs})
					}
				}
			}
		}
	}
	return out
}

// writesIn reports whether section sec writes sv, or a field of it that
// sv's uses may be.
func (u *regionUses) writesIn(sv secVar, sec int) bool {
	for wv, bySec := range u.elems {
		if wv.v == sv.v && (sv.field == "" || wv.field == "" || wv.field == sv.field) && len(bySec[sec]) > 0 {
			return true
		}
	}
	return false
}

// bernsteinElems refuses sections of which one writes an element (or
// through a pointer) that another uses (elemKey: the same constant index,
// or one that may be any).
func (t *translator) bernsteinElems(u *regionUses) {
	var all []found
	for sv, bySec := range u.elems {
		if u.r.shared[sv.v] {
			continue // listed in shared: the user's intent
		}
		for ws, keys := range bySec {
			for key, pos := range keys {
				other := -1
				for used, secs := range u.secs {
					if used.v != sv.v || sv.field != "" && used.field != "" && used.field != sv.field {
						continue
					}
					for s2, ukeys := range secs {
						if s2 != ws && (other < 0 || s2 < other) && elemsMeet(key, ukeys) {
							other = s2
						}
					}
				}
				if other >= 0 {
					all = append(all, found{pos, sv, key, ws, other})
				}
			}
		}
	}
	all = append(all, t.readAfterWrite(u)...)
	// One error per written variable, at its first write, in source order.
	sort.Slice(all, func(i, j int) bool { return all[i].pos < all[j].pos })
	done := map[secVar]bool{}
	for _, f := range all {
		if done[f.sv] {
			continue
		}
		done[f.sv] = true
		what := f.sv.name()
		if f.key != aliasElem {
			what += "[" + strings.TrimPrefix(f.key, heldElem) + "]"
		}
		t.errorf(f.pos, "%s is written in section %d (or may be, through a pointer or a call) and used in section %d: the sections depend on each other; run them in order, or have each section use its own elements", what, f.ws, f.other)
	}
}
