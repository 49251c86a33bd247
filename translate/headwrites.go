package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// A parallel loop's bound and step are evaluated once, before the loop
// (loophead.go); go run evaluates them at every iteration. loopHeadWrites
// refuses, in the loop's body and in the code it calls, a write of what
// they read: a variable, a field (of any struct of its type: fields are
// the struct type's), or an element of a slice or the target of a pointer
// (any element of the same type that may be the same memory).

// headReads is what one part of a loop header (the bound, the step) reads.
type headReads struct {
	what   string                    // "bound" or "step"
	expr   ast.Expr                  // the part, as written
	vars   map[*types.Var][][]string // variables' own storage, by path (field names, "[]" for an array index)
	fields map[*types.Var]bool       // the fields it selects
	elems  []headElem                // memory read through a slice index or a pointer
}

// headElem is memory that a loop header reads through a slice index or a
// pointer, or that a write writes so: of type typ, reached from root (nil
// when it is not a variable).
type headElem struct {
	typ  types.Type
	root *types.Var
	// ptr: the memory is reached through a pointer (*p, p.f), not a
	// slice. A bound's variable whose address is taken can be written
	// only so (addrOnly), unless it is an array, which slices reach too.
	ptr, addrOnly bool
}

// loopHeadWrites refuses, for every three-clause parallel loop whose bound
// or step is not constant, the writes of what they read in the loop's
// body and in every function it may call.
func (t *translator) loopHeadWrites() {
	for _, r := range t.regions {
		li := r.loop
		if r.body == nil || li == nil || li.lo == nil {
			continue
		}
		var reads []*headReads
		for _, part := range []struct {
			what string
			e    ast.Expr
		}{{"bound", li.hi}, {"step", li.step}} {
			if part.e != nil && t.info.Types[part.e].Value == nil {
				reads = append(reads, t.headReadsOf(part.what, part.e))
			}
		}
		if len(reads) == 0 {
			continue
		}
		w := t.newRegionWalk(r)
		w.found = new(ErrorList) // analyze reports the walk's own findings
		w.walk = func(root ast.Node, _ func(*types.Var) bool, callee bool) {
			ast.Inspect(root, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					w.call(x, callee)
				case *ast.Ident:
					t.headWrite(r, reads, x, callee)
				}
				return true
			})
		}
		w.walk(r.body, nil, false)
	}
}

// headReadsOf collects what e, the loop's bound or step, reads.
func (t *translator) headReadsOf(what string, e ast.Expr) *headReads {
	h := &headReads{what: what, expr: e, vars: map[*types.Var][][]string{}, fields: map[*types.Var]bool{}}
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && t.info.Types[x].Value != nil {
			return false
		}
		switch x := n.(type) {
		case *ast.Ident:
			if v, ok := t.info.Uses[x].(*types.Var); ok && !v.IsField() {
				h.vars[v] = append(h.vars[v], t.ownPath(x, nil))
				if taken, sliced := t.addressTaken(v); taken || sliced {
					// A pointer made before the loop (p := &n) may write
					// it: its writes are memory of v's type.
					_, array := v.Type().Underlying().(*types.Array)
					h.elems = append(h.elems, headElem{typ: v.Type(), addrOnly: !sliced && !array})
				}
			}
		case *ast.SelectorExpr:
			for _, f := range t.selectedFields(x) {
				h.fields[f] = true
			}
		case *ast.IndexExpr:
			if t.indirect(x) {
				h.elems = append(h.elems, headElem{typ: t.info.TypeOf(x), root: t.rootVar(x.X)})
			}
		case *ast.StarExpr:
			h.elems = append(h.elems, headElem{typ: t.info.TypeOf(x), root: t.rootVar(x.X)})
		case *ast.CallExpr:
			if g := t.getterExpr(x, 0); g != nil {
				// What the getter reads: its fields and package
				// variables (its own parameters, which the loop cannot
				// write, come along harmlessly).
				inner := t.headReadsOf(what, g)
				for v, paths := range inner.vars {
					h.vars[v] = append(h.vars[v], paths...)
				}
				for f := range inner.fields {
					h.fields[f] = true
				}
			}
			if fields, ok := t.foreignGetter(x); ok {
				for _, f := range fields {
					h.fields[f] = true
				}
			}
		}
		return true
	})
	return h
}

// addressTaken reports whether the program takes the address of v, or of
// a part of it (&v, &v.f, &v[k]: taken), or slices an array of it (v[:],
// v.a[1:]: sliced).
func (t *translator) addressTaken(v *types.Var) (taken, sliced bool) {
	for _, id := range t.facts.uses[v] {
		var n ast.Node = id
		for {
			p := t.parent[n]
			switch x := p.(type) {
			case *ast.SelectorExpr, *ast.IndexExpr, *ast.ParenExpr:
				n = p
				continue
			case *ast.UnaryExpr:
				taken = taken || x.Op == token.AND
			case *ast.SliceExpr:
				sliced = sliced || x.X == n
			}
			break
		}
	}
	return taken, sliced
}

// selectedFields returns the fields that the selector x selects: the
// field itself and the embedded fields it is promoted through.
func (t *translator) selectedFields(x *ast.SelectorExpr) []*types.Var {
	sel := t.info.Selections[x]
	if sel == nil || sel.Kind() != types.FieldVal {
		return nil
	}
	var out []*types.Var
	typ := sel.Recv()
	for _, i := range sel.Index() {
		if p, ok := typ.Underlying().(*types.Pointer); ok {
			typ = p.Elem()
		}
		st, ok := typ.Underlying().(*types.Struct)
		if !ok {
			break
		}
		f := st.Field(i)
		out = append(out, f)
		typ = f.Type()
	}
	return out
}

// indirect reports whether x indexes memory that its operand refers to
// (a slice, a pointer to an array), not the operand's own storage.
func (t *translator) indirect(x *ast.IndexExpr) bool {
	switch t.info.TypeOf(x.X).Underlying().(type) {
	case *types.Slice, *types.Pointer:
		return true
	}
	return false
}

// ownPath returns the path in the variable's own storage that the use id
// reaches by selecting fields of structs and indexing arrays, climbing no
// higher than stop: field names, "[]" for an index.
func (t *translator) ownPath(id *ast.Ident, stop ast.Expr) []string {
	var path []string
	var cur ast.Expr = id
	for cur != stop {
		switch p := t.parent[cur].(type) {
		case *ast.ParenExpr:
			cur = p
			continue
		case *ast.SelectorExpr:
			if p.X == cur && !t.isPointer(cur) && t.selectedFields(p) != nil {
				for _, f := range t.selectedFields(p) {
					path = append(path, f.Name())
				}
				cur = p
				continue
			}
		case *ast.IndexExpr:
			if _, ok := t.info.TypeOf(cur).Underlying().(*types.Array); ok && p.X == cur {
				path = append(path, "[]")
				cur = p
				continue
			}
		}
		break
	}
	return path
}

// overlap reports whether the storage at two paths of a variable overlaps:
// one path leads into the other ("[]" is any index).
func overlap(a, b []string) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] && a[i] != "[]" && b[i] != "[]" {
			return false
		}
	}
	return true
}

// headWrite refuses the use id, in r's loop body or in code it calls
// (callee), if it writes what one of reads reads.
func (t *translator) headWrite(r *region, reads []*headReads, id *ast.Ident, callee bool) {
	v, ok := t.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v == r.loop.v {
		return
	}
	a := t.access(id)
	if !a.write || t.methodOfPackage(a.expr) {
		return // not a write, or a method's, walked
	}
	through := a.ref != nil && a.ref == a.expr // written through the value of a.expr
	// Code of the package that a call hands a.expr to is walked: its
	// writes are seen where they are.
	walked := through && !t.externalWrite(a.expr)
	for _, h := range reads {
		why := ""
		if a.loc == locOwn && slices.ContainsFunc(h.vars[v], func(p []string) bool { return overlap(p, t.ownPath(id, a.expr)) }) {
			why = "uses it"
		} else if walked {
			continue
		} else if f := t.writesField(a.expr, through, h.fields); f != nil && (!through || t.foreignMayWriteFields(a.expr)) {
			why = "reads the field " + f.Name() + ", which this writes (in a struct that may be the same)"
		} else if typ := t.writesElem(r, a, through, h.elems); typ != nil {
			why = "reads " + article(t.typeName(typ)) + " in memory that this may write (CAPE cannot tell them apart)"
		} else {
			continue
		}
		what := t.text(a.expr) + " is modified"
		if through {
			what = "what " + t.text(a.expr) + " refers to may be modified (by " + t.text(t.parent[a.expr]) + ")"
		}
		where := "in the parallel loop"
		if callee {
			where += " (called from the parallel region at " + t.where(r.dir.pos) + ")"
		}
		t.errorf(id.Pos(), "%s %s, but the loop's %s %s %s: go run evaluates the %s at every iteration, CAPE once, before the loop; leave it unchanged in the loop", what, where, h.what, t.text(h.expr), why, h.what)
		return
	}
}

// methodOfPackage reports whether e, a struct, is the receiver of a
// method of the package (e.m(...)): the method is walked, and its writes
// of the receiver's fields are seen there (writesField).
func (t *translator) methodOfPackage(e ast.Expr) bool {
	p, ok := t.parent[e].(*ast.SelectorExpr)
	if !ok || p.X != e {
		return false
	}
	if _, ok := t.info.TypeOf(e).Underlying().(*types.Struct); !ok {
		return false
	}
	sel := t.info.Selections[p]
	return sel != nil && sel.Kind() == types.MethodVal && sel.Obj().Pkg() == t.p.types
}

// externalWrite reports whether e, whose value a call writes through, is
// handed to code CAPE does not walk: a builtin (copy, append, clear) or a
// function or method of another package.
func (t *translator) externalWrite(e ast.Expr) bool {
	p := t.parent[t.outerParens(e)]
	switch x := p.(type) {
	case *ast.SelectorExpr: // e.Method(...)
		fn, ok := t.info.Uses[x.Sel].(*types.Func)
		return !ok || fn.Pkg() != t.p.types
	case *ast.CallExpr:
		if _, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); ok {
			return true
		}
		fn, _ := t.externalCallee(x)
		return fn != nil
	}
	return false
}

// heldWrite reports whether e, whose value a call writes through, is
// handed to a function or method of another package outside the standard
// library, which may write through the slices and pointers that e's
// struct holds (needHeld).
func (t *translator) heldWrite(e ast.Expr) bool {
	p := t.parent[t.outerParens(e)]
	var fn *types.Func
	switch x := p.(type) {
	case *ast.SelectorExpr: // e.Method(...)
		fn, _ = t.info.Uses[x.Sel].(*types.Func)
	case *ast.CallExpr:
		fn, _ = t.externalCallee(x)
	}
	return fn != nil && fn.Pkg() != nil && fn.Pkg() != t.p.types && !t.foreign.standard(fn.Pkg().Path())
}

// foreignMayWriteFields reports whether the call that e's value is handed
// to, as a receiver or an argument, may write number fields of what it
// refers to: unless it calls a function or method of another package
// whose source shows it writes none (m.Set(i, j, v) writing an element of
// m.Data).
func (t *translator) foreignMayWriteFields(e ast.Expr) bool {
	var n ast.Node = e
	for {
		if pe, ok := t.parent[n].(*ast.ParenExpr); ok {
			n = pe
			continue
		}
		break
	}
	var u paramUse
	switch x := t.parent[n].(type) {
	case *ast.SelectorExpr:
		call, ok := t.parent[x].(*ast.CallExpr)
		if !ok || call.Fun != x {
			return true
		}
		if fn, recv := t.externalCallee(call); fn != nil && recv == x.X {
			u = t.foreign.callerRecvUse(fn)
		}
	case *ast.CallExpr:
		fn, _ := t.externalCallee(x)
		sig, _ := t.info.TypeOf(x.Fun).(*types.Signature)
		if fn == nil || sig == nil {
			return true
		}
		for i, arg := range x.Args {
			if arg == n {
				u = t.foreign.paramUse(fn, paramIndex(sig, i))
			}
		}
	}
	return !u.known || u.fieldWrites
}

// writtenType is the type of the memory a write of e writes: e's own, or,
// written through e's value, what it refers to.
func (t *translator) writtenType(e ast.Expr, through bool) types.Type {
	typ := t.info.TypeOf(e)
	if !through || typ == nil {
		return typ
	}
	switch u := typ.Underlying().(type) {
	case *types.Slice:
		return u.Elem()
	case *types.Pointer:
		return u.Elem()
	}
	return typ
}

// writesField returns the field of fields that writing e (through its
// value, when through) writes: e selects it, in the storage it writes, or
// holds it; or nil.
func (t *translator) writesField(e ast.Expr, through bool, fields map[*types.Var]bool) *types.Var {
	if len(fields) == 0 {
		return nil
	}
	if !through {
		for x := ast.Unparen(e); x != nil; x = placeOperand(x) {
			if ix, ok := x.(*ast.IndexExpr); ok && t.indirect(ix) {
				break
			}
			if _, ok := x.(*ast.StarExpr); ok {
				break
			}
			if sel, ok := x.(*ast.SelectorExpr); ok {
				for _, f := range t.selectedFields(sel) {
					if fields[f] {
						return f
					}
				}
				if t.isPointer(sel.X) {
					break
				}
			}
		}
	}
	return heldField(t.writtenType(e, through), fields, 0)
}

// heldField returns the field of fields that a value of type typ holds in
// its own storage, or nil.
func heldField(typ types.Type, fields map[*types.Var]bool, depth int) *types.Var {
	if typ == nil || depth > 8 {
		return nil
	}
	switch u := typ.Underlying().(type) {
	case *types.Array:
		return heldField(u.Elem(), fields, depth+1)
	case *types.Struct:
		for i := range u.NumFields() {
			if fields[u.Field(i)] {
				return u.Field(i)
			}
			if f := heldField(u.Field(i).Type(), fields, depth+1); f != nil {
				return f
			}
		}
	}
	return nil
}

// holdsType reports whether a value of type typ is, or holds in its own
// storage, a value of type part.
func holdsType(typ, part types.Type, depth int) bool {
	if typ == nil || part == nil || depth > 8 {
		return false
	}
	if types.Identical(typ, part) {
		return true
	}
	switch u := typ.Underlying().(type) {
	case *types.Array:
		return holdsType(u.Elem(), part, depth+1)
	case *types.Struct:
		for i := range u.NumFields() {
			if holdsType(u.Field(i).Type(), part, depth+1) {
				return true
			}
		}
	}
	return false
}

// writtenElem returns the memory that the write a of e writes through a
// slice index or a pointer (a field through a pointer: the field's), and
// false when it writes a variable's own storage.
func (t *translator) writtenElem(a access, through bool) (headElem, bool) {
	if through {
		return headElem{typ: t.writtenType(a.expr, true), root: t.rootVar(a.expr), ptr: true}, true
	}
	for x := ast.Unparen(a.expr); x != nil; x = placeOperand(x) {
		switch y := x.(type) {
		case *ast.IndexExpr:
			if t.indirect(y) {
				return headElem{typ: t.info.TypeOf(y), root: t.rootVar(y.X)}, true
			}
		case *ast.StarExpr:
			return headElem{typ: t.info.TypeOf(y), root: t.rootVar(y.X), ptr: true}, true
		case *ast.SelectorExpr:
			if t.isPointer(y.X) {
				return headElem{typ: t.info.TypeOf(y), root: t.rootVar(y.X), ptr: true}, true
			}
		}
	}
	return headElem{}, false
}

// writesElem returns the type of the memory of elems that the write a
// (through its value, when through) may write: memory of a type that
// holds, or is held by, one of theirs, reached from the same variable, or
// from variables not proven to refer to different memory (isolated); or
// nil.
func (t *translator) writesElem(r *region, a access, through bool, elems []headElem) types.Type {
	if len(elems) == 0 {
		return nil
	}
	w, ok := t.writtenElem(a, through)
	if !ok {
		return nil
	}
	for _, e := range elems {
		switch {
		case e.addrOnly && !w.ptr: // a slice's element is not a variable's memory
		case !holdsType(w.typ, e.typ, 0) && !holdsType(e.typ, w.typ, 0):
		case w.root != nil && w.root == e.root:
			return e.typ
		case e.root != nil && t.isolated(e.root), w.root != nil && t.isolated(w.root):
			// The memory of one is reached through it alone: the other
			// refers to other memory.
		case w.root != nil && within(w.root.Pos(), r.stmt) && t.freshSources(w.root, false):
			// Made by the iteration, after the header was read.
		default:
			return e.typ
		}
	}
	return nil
}

// isolated reports whether the memory that v (a slice or a pointer)
// refers to is reached through v alone: every value of v is memory made
// for it (freshSources, another package's function's included), and every
// use of v indexes, dereferences or measures it, ranges over it, or
// assigns v; no address of, slice of or method call on what it refers to
// is taken.
func (t *translator) isolated(v *types.Var) bool {
	if !t.freshSources(v, true) {
		return false
	}
	for _, id := range t.facts.uses[v] {
		var cur ast.Expr = id
		p := t.parent[cur]
		switch x := p.(type) {
		case *ast.AssignStmt:
			if slices.Contains(x.Lhs, cur) {
				continue
			}
			return false
		case *ast.RangeStmt:
			if x.X == cur {
				continue
			}
			return false
		case *ast.CallExpr:
			if t.keepsNoArg(x) {
				continue
			}
			return false
		case *ast.StarExpr:
		case *ast.IndexExpr:
			if x.X != cur {
				return false
			}
		default:
			return false
		}
		if !t.valueUse(p.(ast.Expr)) {
			return false
		}
	}
	return true
}

// keepsNoArg reports whether call keeps none of its arguments, nor
// returns one: len, cap, copy, or a function (not a method) of another
// package that is not a constructor (New...), such as fmt.Println.
func (t *translator) keepsNoArg(call *ast.CallExpr) bool {
	if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok {
		return b.Name() == "len" || b.Name() == "cap" || b.Name() == "copy"
	}
	fn, recv := t.externalCallee(call)
	return fn != nil && recv == nil && !strings.HasPrefix(fn.Name(), "New")
}

// valueUse reports whether e, memory that a pointer or slice refers to,
// is used as a value: read or assigned, its fields or array elements too,
// never its address taken, sliced, or its method called.
func (t *translator) valueUse(e ast.Expr) bool {
	for {
		switch p := t.parent[e].(type) {
		case *ast.ParenExpr:
			e = p
			continue
		case *ast.SelectorExpr:
			sel := t.info.Selections[p]
			if sel != nil && sel.Kind() == types.FieldVal && !t.isPointer(e) {
				e = p
				continue
			}
			return sel == nil || sel.Kind() == types.FieldVal
		case *ast.IndexExpr:
			if _, ok := t.info.TypeOf(e).Underlying().(*types.Array); ok && p.X == e {
				e = p
				continue
			}
		case *ast.UnaryExpr:
			return p.Op != token.AND
		case *ast.SliceExpr:
			return p.X != e
		}
		return true
	}
}

// freshSources reports whether every value of v is memory made for it: a
// make, a new, a composite literal or its address (or nil), or, where
// calls is set, the result of another package's function handed no
// references (flag.Int).
func (t *translator) freshSources(v *types.Var, calls bool) bool {
	srcs := t.facts.sources[v]
	for _, s := range srcs {
		if s.zero {
			continue
		}
		if s.expr == nil || s.unknown != "" {
			return false
		}
		switch x := ast.Unparen(s.expr).(type) {
		case *ast.CallExpr:
			if b, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); ok && (b.Name() == "make" || b.Name() == "new") {
				continue
			}
			fn, recv := t.externalCallee(x)
			if !calls || fn == nil || recv != nil || slices.ContainsFunc(x.Args, func(a ast.Expr) bool { return refersTo(t.info.TypeOf(a)) }) {
				return false
			}
		case *ast.CompositeLit:
		case *ast.UnaryExpr:
			if _, ok := ast.Unparen(x.X).(*ast.CompositeLit); !ok || x.Op != token.AND {
				return false
			}
		default:
			return false
		}
	}
	return len(srcs) > 0
}

// article returns name after "a" or "an", as its first letter sounds.
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}
