package translate

// Hints: what the translator can prove about a region so that the monitor
// compares less memory (cape.WritesIn, cape.Region.InLoop; the runtime's
// side is in cape/hint_unsafe.go). Each proof is conservative: where a statement
// is not of the few simple forms recognized, there is no hint, and the
// region is tracked as any other. A wrong hint loses writes, so nothing
// here guesses.
//
//   - Bounds: the region has no lastprivate variable (whose value it
//     hands over inside the region), and every write of its body is to a
//     variable of the body (or a clause variable's private copy), or to an element of a
//     slice variable declared outside the region and not assigned in it,
//     possibly through array indexes and struct fields of that element;
//     the body calls nothing but builtins that write nothing, conversions
//     and the functions of math and math/bits; it takes no address, starts
//     no goroutine, defers nothing, and makes no closure or channel
//     operation. The slices are the bounds.
//   - A clean loop: the package starts no goroutine, the region is a
//     statement of a for or range loop's body, the loop holds no other
//     region, and the loop's condition, post
//     statement and every other statement of its body write only local
//     variables that are not in the arena, under the same limits on calls.
//     Between two of its regions, nothing then writes the arena but the
//     runtime, which tells the monitor.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
)

// emitHint writes, after the region's Begin, the calls that give the
// runtime what was proved, and declares the clean loop's cape.Loop just
// before the loop, once.
func (t *emitter) emitHint(b *strings.Builder, fo *fileOut, r *region, rv string) {
	h := t.hintOf(r)
	c := fo.cape()
	if r.updates {
		fmt.Fprintf(b, "%s.Updates() // shared elements updated at indices not proved distinct per iteration\n", rv)
	}
	if len(r.marks) > 0 || len(r.calleeMarks) > 0 {
		fmt.Fprintf(b, "%s.MarkWrites() // writes to places not proved each iteration's own: the nodes' values are compared\n", rv)
	}
	if h.bounded {
		if len(h.slices) == 0 {
			fmt.Fprintf(b, "%s.WritesIn[byte](%s, nil) // the region writes no arena memory\n", c, rv)
		}
		for _, v := range h.slices {
			fmt.Fprintf(b, "%s.WritesIn(%s, %s)\n", c, rv, v.Name())
		}
	}
	if h.loop == nil {
		return
	}
	name := t.loopNames[h.loop]
	if name == "" {
		nm := t.fnNamers[r.fn]
		if nm == nil {
			nm = newNamer(t.identsIn(r.fn))
			t.fnNamers[r.fn] = nm
		}
		name = nm.get("capeLoop")
		t.loopNames[h.loop] = name
		fo.ed.insert(fo.off(h.loop.Pos()), fmt.Sprintf("%s := %s.NewLoop()%s\n", name, c, t.lineDirBefore(fo, h.loop.Pos())))
	}
	fmt.Fprintf(b, "%s.InLoop(%s)\n", rv, name)
}

// regionHint is what the translator proved about a region.
type regionHint struct {
	bounded bool
	slices  []*types.Var // with bounded: the slices whose elements the region may write
	loop    ast.Stmt     // the clean loop the region is in (its label statement if labeled), or nil
}

// hintOf returns what can be proved about r.
func (t *emitter) hintOf(r *region) regionHint {
	var h regionHint
	if r.outer != nil {
		return h // nested: the enclosing region's monitor tracks it
	}
	w := &boundsWalk{t: t, r: r, ok: true}
	for _, v := range r.order {
		if r.clauseOf[v] == "lastprivate" {
			w.ok = false // the region hands its value over where it lives (the arena, perhaps)
		}
	}
	ast.Inspect(r.body, w.visit)
	if w.ok {
		h.bounded, h.slices = true, w.slices
	}
	h.loop = t.cleanLoop(r)
	return h
}

// boundsWalk checks the writes of a region's body.
type boundsWalk struct {
	t      *emitter
	r      *region
	ok     bool
	slices []*types.Var
	seen   map[*types.Var]bool
}

func (w *boundsWalk) visit(n ast.Node) bool {
	if !w.ok || n == nil {
		return false
	}
	switch s := n.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			w.lhs(l, s.Tok == token.DEFINE)
		}
	case *ast.IncDecStmt:
		w.lhs(s.X, false)
	case *ast.RangeStmt:
		if s.Tok == token.ASSIGN {
			for _, l := range []ast.Expr{s.Key, s.Value} {
				if l != nil {
					w.lhs(l, false)
				}
			}
		}
		if rangeRunsCode(w.t.info.TypeOf(s.X)) {
			w.ok = false
		}
	case *ast.CallExpr:
		w.ok = w.ok && w.t.pureCall(s)
	case *ast.UnaryExpr:
		w.ok = w.ok && s.Op != token.AND && s.Op != token.ARROW
	case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt, *ast.SendStmt, *ast.SelectStmt, *ast.StarExpr:
		w.ok = false
	case *ast.BranchStmt:
		w.ok = w.ok && s.Tok != token.GOTO
	}
	return w.ok
}

// lhs checks one assigned expression of the region's body.
func (w *boundsWalk) lhs(e ast.Expr, define bool) {
	t := w.t
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if x.Name == "_" || define {
			return
		}
		v, _ := t.info.Uses[x].(*types.Var)
		if v == nil || !w.private(v) {
			w.ok = false // a shared variable: it lives in the arena
		}
	case *ast.IndexExpr:
		switch t.info.TypeOf(x.X).Underlying().(type) {
		case *types.Array:
			w.lhs(x.X, false) // an element of an array value: the array's memory
		case *types.Slice:
			w.slice(x.X)
		default:
			w.ok = false // a map, a pointer to an array, a string
		}
	case *ast.SelectorExpr:
		sel := t.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
			w.ok = false
			return
		}
		w.lhs(x.X, false) // a field of a struct value: the struct's memory
	default:
		w.ok = false
	}
}

// slice records the slice whose element the region writes: a variable
// declared outside the region, not a clause variable, not in the arena
// itself (then its uses are rewritten), and not assigned in the region.
func (w *boundsWalk) slice(e ast.Expr) {
	t := w.t
	id, _ := ast.Unparen(e).(*ast.Ident)
	if id == nil {
		w.ok = false // a slice expression, a field, an element: unknown memory
		return
	}
	v, _ := t.info.Uses[id].(*types.Var)
	switch {
	case v == nil, t.place.boxes[v] != nil, within(v.Pos(), w.r.stmt):
		w.ok = false // a slice of the body may alias anything
		return
	}
	if c := w.r.clauseOf[v]; c != "" {
		// A reduction's private copy is the node's own; another clause
		// copies only the slice header, whose elements are shared.
		w.ok = w.ok && c == "reduction"
		return
	}
	if w.seen == nil {
		w.seen = map[*types.Var]bool{}
	}
	if !w.seen[v] {
		w.seen[v] = true
		w.slices = append(w.slices, v)
	}
}

// private reports whether the variable v, assigned in the region's body,
// is the region's own: declared in the region, its loop variable, or a
// clause variable of it (the body works on a private copy).
func (w *boundsWalk) private(v *types.Var) bool {
	r := w.r
	if within(v.Pos(), r.stmt) {
		return true
	}
	if r.loop != nil && (v == r.loop.v || v == r.loop.valueVar) {
		return true
	}
	return r.clauseOf[v] != "" && !isSliceOrPointer(v.Type())
}

func isSliceOrPointer(typ types.Type) bool {
	switch typ.Underlying().(type) {
	case *types.Slice, *types.Pointer, *types.Map:
		return true
	}
	return false
}

// pureCall reports whether call writes no memory and runs no code of the
// program: a conversion, a builtin that writes nothing, or a function of
// math or math/bits.
func (t *emitter) pureCall(call *ast.CallExpr) bool {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if b, ok := t.info.Uses[f].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "min", "max", "real", "imag", "complex", "panic", "print", "println":
				return true
			}
		}
	case *ast.SelectorExpr:
		if fn, ok := t.info.Uses[f.Sel].(*types.Func); ok && fn.Pkg() != nil {
			if sig, _ := fn.Type().(*types.Signature); sig != nil && sig.Recv() == nil {
				switch fn.Pkg().Path() {
				case "math", "math/bits":
					return true
				}
			}
		}
	}
	return false
}

// cleanExpr reports whether evaluating e writes no memory: its calls are
// pure (pureCall), and it has no closure and no channel receive.
func (t *emitter) cleanExpr(e ast.Node) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			ok = ok && t.pureCall(x)
		case *ast.UnaryExpr:
			ok = ok && x.Op != token.ARROW && x.Op != token.AND
		case *ast.FuncLit:
			ok = false
		}
		return ok
	})
	return ok
}

// cleanLoop returns the loop statement (its label statement if labeled)
// whose body holds r as a statement and nothing else that may write the
// arena, or nil.
func (t *emitter) cleanLoop(r *region) ast.Stmt {
	if t.startsGoroutines() {
		return nil // one may write the arena while the loop runs
	}
	own := ast.Stmt(r.stmt)
	if r.label != nil {
		own = r.label
	}
	blk, _ := t.parent[own].(*ast.BlockStmt)
	if blk == nil {
		return nil
	}
	var loop ast.Stmt
	var cond, post ast.Node
	switch l := t.parent[blk].(type) {
	case *ast.ForStmt:
		loop, cond, post = l, l.Cond, l.Post
	case *ast.RangeStmt:
		if !t.cleanRangeHead(l) {
			return nil
		}
		loop = l // its expression is evaluated once, before the first region
	default:
		return nil
	}
	// The loop's regions: statements of its body (with what they nest),
	// each clean at its edges. Between two of them, within an iteration or
	// from one to the next, run only the body's other statements.
	direct := map[ast.Stmt]*region{}
	for _, q := range t.regions {
		st := ast.Stmt(q.stmt)
		if q.label != nil {
			st = q.label
		}
		if t.parent[st] == blk {
			direct[st] = q
		}
	}
	for _, o := range t.regions {
		if !within(o.stmt.Pos(), loop) {
			continue
		}
		nested := false
		for st := range direct {
			nested = nested || within(o.stmt.Pos(), st)
		}
		if !nested {
			return nil // a region of the loop that is not a statement of its body
		}
	}
	for _, q := range direct {
		if !t.cleanEdges(q) {
			return nil
		}
	}
	if (cond != nil && !t.cleanExpr(cond)) || (post != nil && !t.cleanStmt(post.(ast.Stmt))) {
		return nil
	}
	for _, s := range blk.List {
		if direct[s] == nil && !t.cleanStmt(s) {
			return nil
		}
	}
	if lab, ok := t.parent[loop].(*ast.LabeledStmt); ok {
		return lab
	}
	return loop
}

// cleanEdges reports whether the region q writes no arena memory outside
// its Start and Stop: no result is written into the arena after it, and
// its loop's bounds, variable and chunk size write nothing there either.
func (t *emitter) cleanEdges(q *region) bool {
	for _, v := range q.order {
		if t.place.boxes[v] != nil {
			return false // its result is written into the arena after the region
		}
	}
	// The parallel loop's bounds and chunk size are evaluated before the
	// region starts, its variable set after it.
	if l := q.loop; l != nil {
		if l.v != nil && t.place.boxes[l.v] != nil {
			return false
		}
		for _, e := range []ast.Expr{l.lo, l.hi, l.step, l.rangeX} {
			if e != nil && !t.cleanExpr(e) {
				return false
			}
		}
	}
	return q.chunk == "" || callFree(q.chunk)
}

// startsGoroutines reports whether the package has a go statement.
func (t *emitter) startsGoroutines() bool {
	if t.goStmts == 0 {
		t.goStmts = 1
		for _, f := range t.p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				if _, ok := n.(*ast.GoStmt); ok {
					t.goStmts = 2
				}
				return t.goStmts == 1
			})
		}
	}
	return t.goStmts == 2
}

// cleanStmt reports whether s writes only local variables that are not in
// the arena (see cleanLoop).
func (t *emitter) cleanStmt(s ast.Stmt) bool {
	switch x := s.(type) {
	case nil, *ast.EmptyStmt:
		return true
	case *ast.ExprStmt:
		return t.cleanExpr(x.X)
	case *ast.AssignStmt:
		for _, l := range x.Lhs {
			if !t.localIdent(l) {
				return false
			}
		}
		return t.cleanExprs(x.Rhs)
	case *ast.IncDecStmt:
		return t.localIdent(x.X)
	case *ast.DeclStmt:
		gd, _ := x.Decl.(*ast.GenDecl)
		if gd == nil {
			return false
		}
		for _, sp := range gd.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if ok && !t.cleanExprs(vs.Values) {
				return false
			}
			if ok {
				for _, id := range vs.Names {
					if v, _ := t.info.Defs[id].(*types.Var); v != nil && t.place.boxes[v] != nil {
						return false
					}
				}
			}
		}
		return true
	case *ast.BlockStmt:
		return t.cleanStmts(x.List)
	case *ast.IfStmt:
		return t.cleanStmt(x.Init) && t.cleanExpr(x.Cond) && t.cleanStmt(x.Body) && (x.Else == nil || t.cleanStmt(x.Else))
	case *ast.ForStmt:
		return t.cleanStmt(x.Init) && (x.Cond == nil || t.cleanExpr(x.Cond)) && t.cleanStmt(x.Post) && t.cleanStmt(x.Body)
	case *ast.RangeStmt:
		return t.cleanRange(x)
	case *ast.SwitchStmt:
		return t.cleanStmt(x.Init) && (x.Tag == nil || t.cleanExpr(x.Tag)) && t.cleanStmt(x.Body)
	case *ast.CaseClause:
		return t.cleanExprs(x.List) && t.cleanStmts(x.Body)
	case *ast.BranchStmt:
		return x.Tok != token.GOTO
	case *ast.ReturnStmt:
		return t.cleanExprs(x.Results)
	case *ast.LabeledStmt:
		return t.cleanStmt(x.Stmt)
	}
	return false // go, defer, send, select, type switches: not analyzed
}

// rangeRunsCode reports whether ranging over a value of type typ does more
// than read it: a channel receives (another goroutine's sends), a function
// runs the program's code.
func rangeRunsCode(typ types.Type) bool {
	_, fn := typ.Underlying().(*types.Signature)
	return fn || isChan(typ)
}

func (t *emitter) cleanRange(x *ast.RangeStmt) bool {
	return t.cleanRangeHead(x) && t.cleanExpr(x.X) && t.cleanStmt(x.Body)
}

// cleanRangeHead reports whether each iteration of the range loop x
// writes only local variables outside the arena: it ranges over no
// channel and no function (which runs the program's code), and assigns
// (=) only such variables.
func (t *emitter) cleanRangeHead(x *ast.RangeStmt) bool {
	if rangeRunsCode(t.info.TypeOf(x.X)) {
		return false
	}
	for _, l := range []ast.Expr{x.Key, x.Value} {
		if l != nil && x.Tok == token.ASSIGN && !t.localIdent(l) {
			return false
		}
	}
	return true
}

// callFree reports whether the expression src parses and calls nothing
// (a chunk size, known only as text).
func callFree(src string) bool {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return false
	}
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.CallExpr, *ast.FuncLit, *ast.UnaryExpr:
			ok = false
		}
		return ok
	})
	return ok
}

func (t *emitter) cleanStmts(list []ast.Stmt) bool {
	for _, s := range list {
		if !t.cleanStmt(s) {
			return false
		}
	}
	return true
}

func (t *emitter) cleanExprs(list []ast.Expr) bool {
	for _, e := range list {
		if !t.cleanExpr(e) {
			return false
		}
	}
	return true
}

// localIdent reports whether e, assigned, is _ or a variable of a
// function that is not in the arena.
func (t *emitter) localIdent(e ast.Expr) bool {
	id, _ := ast.Unparen(e).(*ast.Ident)
	if id == nil {
		return false
	}
	if id.Name == "_" {
		return true
	}
	o := t.info.Defs[id]
	if o == nil {
		o = t.info.Uses[id]
	}
	v, _ := o.(*types.Var)
	return v != nil && v.Pkg() != nil && v.Parent() != v.Pkg().Scope() && t.place.boxes[v] == nil
}
