package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// loc says where the memory written by an access lives.
type loc int

const (
	locNone    loc = iota // not memory (a non-addressable value)
	locOwn                // the variable's own storage
	locRef                // the memory the variable (a slice or pointer) refers to
	locUnknown            // memory reached through something else (a field holding a slice, ...)
	locMap                // a map entry
	locChan               // a channel's buffer (a send, a receive, a close)
)

// An access is how one use of a variable touches memory.
type access struct {
	write    bool
	loc      loc
	indexed  bool // own storage written through an array index or slice (not the whole variable)
	appendTo bool // the first argument of append
	expr     ast.Expr
	// ref is the expression whose value (a slice or pointer) refers to the
	// memory written, when loc is locRef or locUnknown: a[i] for a[i][j] = v.
	ref ast.Expr
}

// pointsOf returns dflt if values of type typ refer to other memory
// (slices, pointers), locNone otherwise.
func pointsOf(typ types.Type, dflt loc) loc {
	if typ == nil {
		return locNone
	}
	switch typ.Underlying().(type) {
	case *types.Slice, *types.Pointer:
		return dflt
	}
	return locNone
}

// access classifies the use id of a variable: which memory the enclosing
// expression reads or writes. Anything that may write (assignment, ++,
// taking the address, passing a slice or pointer to a call, a pointer
// method) counts as a write.
func (t *translator) access(id *ast.Ident) access {
	var e ast.Expr = id
	l := locOwn
	pt := pointsOf(t.info.TypeOf(id), locRef)
	indexed := false
	var lref ast.Expr // the ref of l, when l is locRef or locUnknown
	read := access{expr: id}
	write := func(at loc) access {
		return access{write: true, loc: at, indexed: indexed, expr: e, ref: lref}
	}
	writePt := func() access { // through the value of e itself
		return access{write: true, loc: pt, indexed: indexed, expr: e, ref: e}
	}
walk:
	for {
		switch p := t.parent[e].(type) {
		case *ast.ParenExpr:
			e = p
		case *ast.SelectorExpr:
			if p.X != e {
				break walk
			}
			sel := t.info.Selections[p]
			if sel == nil {
				break walk
			}
			if sel.Kind() == types.FieldVal {
				if _, ok := t.info.TypeOf(e).Underlying().(*types.Pointer); ok {
					l, lref = pt, e
				}
				pt = pointsOf(t.info.TypeOf(p), locUnknown)
				e = p
				continue
			}
			// A method value or call: a pointer receiver may write.
			fn, ok := sel.Obj().(*types.Func)
			if !ok {
				return read
			}
			recv := fn.Type().(*types.Signature).Recv()
			if recv == nil {
				return read
			}
			if _, ptrRecv := recv.Type().Underlying().(*types.Pointer); !ptrRecv {
				return read
			}
			if _, isPtr := t.info.TypeOf(e).Underlying().(*types.Pointer); isPtr {
				return writePt()
			}
			indexed = true // a method may write any part
			return write(l)
		case *ast.IndexExpr:
			if p.X != e {
				break walk
			}
			switch t.info.TypeOf(e).Underlying().(type) {
			case *types.Slice, *types.Pointer:
				l, lref = pt, e
			case *types.Array:
				indexed = true
			case *types.Map:
				l = locMap
			default:
				return read
			}
			pt = pointsOf(t.info.TypeOf(p), locUnknown)
			e = p
		case *ast.StarExpr:
			l, lref = pt, e
			pt = pointsOf(t.info.TypeOf(p), locUnknown)
			e = p
		case *ast.CallExpr:
			// A conversion to a slice, pointer or interface type still
			// refers to the same memory (sort.Sort(byKey(s)) writes s).
			tv, ok := t.info.Types[p.Fun]
			if !ok || !tv.IsType() || len(p.Args) != 1 || p.Args[0] != e {
				break walk
			}
			switch tv.Type.Underlying().(type) {
			case *types.Slice, *types.Pointer, *types.Interface:
			default:
				return read
			}
			e = p
		case *ast.SliceExpr:
			if p.X != e {
				break walk
			}
			switch t.info.TypeOf(e).Underlying().(type) {
			case *types.Array:
				pt, indexed = l, true
			case *types.Slice, *types.Pointer:
			default:
				return read
			}
			l = locNone
			e = p
		default:
			break walk
		}
	}
	switch p := t.parent[e].(type) {
	case *ast.AssignStmt:
		for _, lhs := range p.Lhs {
			if lhs == e {
				return write(l)
			}
		}
	case *ast.IncDecStmt:
		return write(l)
	case *ast.SendStmt:
		if p.Chan == e {
			return write(locChan)
		}
	case *ast.RangeStmt:
		if (p.Key == e || p.Value == e) && p.Tok == token.ASSIGN {
			return write(l)
		}
		if p.X == e && isChan(t.info.TypeOf(e)) {
			return write(locChan)
		}
	case *ast.UnaryExpr:
		if p.Op == token.ARROW {
			return write(locChan)
		}
		if p.Op == token.AND {
			if e == ast.Expr(id) {
				// &v escapes: a scalar is written whole, an aggregate
				// perhaps in parts.
				_, basic := t.info.TypeOf(id).Underlying().(*types.Basic)
				indexed = !basic
			}
			return write(l)
		}
	case *ast.CallExpr:
		if p.Fun == e {
			return read
		}
		if b, ok := t.info.Uses[calleeIdent(p)].(*types.Builtin); ok {
			switch b.Name() {
			case "copy", "clear":
				if p.Args[0] == e {
					if l == locMap || pt == locNone {
						return write(locMap)
					}
					return writePt()
				}
			case "append":
				if p.Args[0] == e {
					a := writePt()
					a.appendTo = true
					return a
				}
			case "close":
				return write(locChan)
			case "delete":
				if p.Args[0] == e {
					return write(locMap)
				}
			}
			return read
		}
		if tv, ok := t.info.Types[p.Fun]; ok && tv.IsType() {
			return read // a conversion
		}
		if isChan(t.info.TypeOf(e)) {
			return write(locChan) // the callee may send or receive
		}
		if pt != locNone {
			return writePt() // the callee may write through it
		}
	}
	return read
}

func isChan(typ types.Type) bool {
	_, ok := typ.Underlying().(*types.Chan)
	return ok
}

func calleeIdent(call *ast.CallExpr) *ast.Ident {
	id, _ := ast.Unparen(call.Fun).(*ast.Ident)
	return id
}

// within reports whether pos lies in n.
func within(pos token.Pos, n ast.Node) bool { return n.Pos() <= pos && pos < n.End() }

// analyzeRegion checks r's control flow and its variables: what must move
// to the arena, and what breaks Bernstein's conditions.
func (t *translator) analyzeRegion(r *region) {
	if r.body == nil || (r.loop == nil && r.dir.kind == dirFor) {
		return
	}
	exits := t.checkControl(r)
	secs := map[*types.Var]map[int]bool{}       // sections using each shared variable
	whole := map[*types.Var]map[int]token.Pos{} // sections assigning it whole
	w := t.newRegionWalk(r)
	var walk func(root ast.Node, local func(*types.Var) bool, callee bool)
	walk = func(root ast.Node, local func(*types.Var) bool, callee bool) {
		ast.Inspect(root, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				w.call(call, callee) // walks what it may run
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			v, ok := t.info.Uses[id].(*types.Var)
			if !ok || v.IsField() || r.refused[v] {
				return true
			}
			isLocal := local(v)
			if r.loop != nil && (v == r.loop.v || v == r.loop.valueVar) && !callee {
				if a := t.access(id); a.write && v == r.loop.v {
					t.errorf(id.Pos(), "the loop variable %s is modified in the parallel loop", id.Name)
				} else {
					t.writeThroughCopy(r, v, id, a)
				}
				return true
			}
			a := t.access(id)
			clause := r.clauseOf[v]
			if clause != "" && !isLocal && callee {
				// The region's copy is a new variable in the region's body;
				// a function called from it uses the variable itself.
				t.errorf(id.Pos(), "%s is in the %s clause of the parallel region at %s, but this code, called from the region, uses the variable itself, not the region's copy; pass it as an argument, or do not list it", id.Name, clause, t.where(r.dir.pos))
				return true
			}
			if clause != "" && !isLocal {
				t.writeThroughCopy(r, v, id, a)
				return true
			}
			sec := -1
			for i, s := range r.sections {
				if within(id.Pos(), s) {
					sec = i
				}
			}
			if callee {
				sec = w.callSec // code called from that section
			}
			if !isLocal && r.dir.kind == dirSections && sec >= 0 {
				if secs[v] == nil {
					secs[v] = map[int]bool{}
				}
				secs[v][sec] = true
			}
			if !a.write {
				return true
			}
			via := ""
			if callee {
				via = " (called from the parallel region at " + t.where(r.dir.pos) + ")"
			}
			switch a.loc {
			case locMap:
				t.errorf(id.Pos(), "map %s is written in a parallel region%s: maps live on the Go heap and cannot be shared; use a slice", id.Name, via)
			case locChan:
				if !isLocal || callee && t.isParam(v) {
					t.errorf(id.Pos(), "channel %s is sent to, received from or closed in a parallel region%s: each node would see only its own share of the operations; collect the values in a slice indexed by iteration", id.Name, via)
				}
			case locUnknown:
				if a.ref == nil {
					t.errorf(id.Pos(), "cannot tell whether the memory written through %s is in the arena%s: write through a slice variable allocated with make", t.text(a.expr), via)
					return true
				}
				t.needExpr(a.ref, t.text(a.ref), id.Pos())
			case locRef:
				if a.appendTo && !isLocal {
					t.errorf(id.Pos(), "append to shared slice %s in a parallel region%s: it may reallocate outside the arena; size it with make before the region", id.Name, via)
					return true
				}
				if clause == "private" {
					return true
				}
				t.need(v, id.Pos())
			case locOwn:
				if isLocal {
					return true
				}
				if v.Pkg() != t.p.types {
					t.errorf(id.Pos(), "%s belongs to package %s and cannot be written in a parallel region%s", id.Name, v.Pkg().Name(), via)
					return true
				}
				if !pointerFree(v.Type()) && !a.indexed {
					t.errorf(id.Pos(), "%s (%s) is assigned in a parallel region%s, but a %s cannot live in the arena; assign elements of a slice, or plain numbers", id.Name, v.Type(), via, kindName(v.Type()))
					return true
				}
				if !a.indexed && !r.shared[v] {
					if r.dir.kind == dirFor {
						if t.beside(id, exits, r.body) {
							return true // follows from the exit reported there
						}
						t.errorf(id.Pos(), "%s is assigned in every iteration of the parallel loop%s (a loop-carried dependence): list it in private, firstprivate, lastprivate or reduction, or in shared if every iteration stores the same value", id.Name, via)
						return true
					}
					if whole[v] == nil {
						whole[v] = map[int]token.Pos{}
					}
					if _, ok := whole[v][sec]; !ok {
						whole[v][sec] = id.Pos()
					}
				}
				t.box(v, id.Pos())
			}
			return true
		})
	}
	w.walk = walk
	walk(r.body, func(v *types.Var) bool { return within(v.Pos(), r.stmt) }, false)
	// Bernstein for sections: a variable assigned whole in one section may
	// not be used by another.
	for v, ws := range whole {
		for ws1, pos := range ws {
			for s2 := range secs[v] {
				if s2 != ws1 {
					t.errorf(pos, "%s is assigned in section %d and used in section %d: the sections depend on each other; list it in shared if that is intended", v.Name(), ws1, s2)
					break
				}
			}
		}
	}
}

// writeThroughCopy handles the access a, by id, of a variable v of which
// the region has a copy of its own (the range value, a variable of a
// clause): a copy of a slice or pointer still refers to shared memory, so
// the memory written through it is traced (the ranged elements, or the
// values the variable is given).
func (t *translator) writeThroughCopy(r *region, v *types.Var, id *ast.Ident, a access) {
	switch {
	case !a.write:
	case a.loc == locUnknown && a.ref != nil:
		t.needExpr(a.ref, t.text(a.ref), id.Pos())
	case a.loc != locRef || r.clauseOf[v] == "reduction":
	case r.loop != nil && v == r.loop.valueVar && v != nil:
		t.needElemOf(r.loop.rangeX, v.Type(), id.Name, id.Pos(), func(what string) {
			t.errorf(id.Pos(), "%s is written through in the parallel region, but its memory comes from %s, which CAPE cannot place in the arena", id.Name, what)
		})
	default:
		t.need(v, id.Pos())
	}
}

func kindName(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Kind() == types.String {
			return "string"
		}
		return "pointer"
	case *types.Slice:
		return "slice header"
	case *types.Map:
		return "map"
	case *types.Pointer:
		return "pointer"
	case *types.Chan:
		return "channel"
	case *types.Signature:
		return "function value"
	case *types.Interface:
		return "interface value"
	}
	return "value containing pointers"
}

// text returns the source text of n.
func (t *translator) text(n ast.Node) string {
	tf := t.fset.File(n.Pos())
	f := t.fileOf[tf]
	src := t.p.srcs[f]
	return string(src[tf.Offset(n.Pos()):tf.Offset(n.End())])
}

// beside reports whether n lies in one of the statement lists in blocks,
// below stop.
func (t *translator) beside(n ast.Node, blocks map[ast.Node]bool, stop ast.Node) bool {
	for p := t.parent[n]; p != nil && p != stop; p = t.parent[p] {
		if blocks[p] {
			return true
		}
	}
	return false
}

// checkControl refuses control flow that leaves the region. It returns the
// blocks holding such a statement: the assignments beside it hand a result
// out of the region, and are not reported again as loop-carried.
func (t *translator) checkControl(r *region) map[ast.Node]bool {
	exits := map[ast.Node]bool{}
	leave := func(s ast.Stmt, format string, args ...any) {
		t.errorf(s.Pos(), format, args...)
		exits[t.parent[s]] = true
	}
	labels := map[string]bool{}
	ast.Inspect(r.body, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			labels[l.Label.Name] = true
		}
		return true
	})
	var stack []ast.Node
	ast.Inspect(r.body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		inFuncLit := func() bool {
			for _, s := range stack {
				if _, ok := s.(*ast.FuncLit); ok {
					return true
				}
			}
			return false
		}
		// nearest returns whether an enclosing statement of the given kinds
		// lies inside the region.
		nearest := func(loops bool) bool {
			for i := len(stack) - 2; i >= 0; i-- {
				switch stack[i].(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					return true
				case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
					if !loops {
						return true
					}
				case *ast.FuncLit:
					return true
				}
			}
			return false
		}
		switch s := n.(type) {
		case *ast.ReturnStmt:
			if !inFuncLit() {
				leave(s, "return leaves the parallel region")
			}
		case *ast.DeferStmt:
			if !inFuncLit() {
				t.errorf(s.Pos(), "defer in a parallel region: the deferred call would run after the region, on one node only")
			}
		case *ast.BranchStmt:
			if inFuncLit() {
				return true
			}
			switch s.Tok {
			case token.BREAK:
				if s.Label == nil && !nearest(false) || s.Label != nil && !labels[s.Label.Name] {
					leave(s, "break leaves the parallel region")
				}
			case token.CONTINUE:
				if s.Label != nil && !labels[s.Label.Name] && !(r.label != nil && s.Label.Name == r.label.Label.Name && r.dir.kind == dirFor) {
					leave(s, "continue %s leaves the parallel region", s.Label.Name)
				}
				if s.Label == nil && r.dir.kind == dirSections && !nearest(true) {
					leave(s, "continue leaves the parallel region")
				}
			case token.GOTO:
				if !labels[s.Label.Name] {
					leave(s, "goto %s leaves the parallel region", s.Label.Name)
				}
			case token.FALLTHROUGH:
			}
		}
		return true
	})
	return exits
}
