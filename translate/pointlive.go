package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
)

// pointsLive refuses a checkpoint point that leaves out state the loop
// around it carries from one pass to the next. A restart from an image
// taken at the point's k-th reach restores the arena and the named
// variables at the point's first reach; every other variable then has the
// value of that first reach. So a variable in scope at the point, used in
// the loop (or after it), that the loop changes must be named, unless the
// arena holds it (a box) and so the image; and a variable whose referent
// the loop changes outside the arena (a map, a generator behind a pointer,
// a slice no region writes) cannot be saved at the point at all.
func (t *translator) pointsLive(place *placement) {
	for _, p := range t.points {
		if t.regionAt[p.stmt] == nil && t.inRegion(p.stmt.Pos()) { // refused by checkPoints
			continue
		}
		t.pointOnce(p)
		loop, fn := t.outerLoop(p.stmt)
		if loop == nil {
			continue
		}
		p.loop, p.called = loop, t.calledIn(loop)
		scope := t.scopeAt(p.stmt)
		if scope == nil {
			continue
		}
		named := map[types.Object]bool{} // refused names too: reported already
		for _, a := range p.dir.vars {
			_, obj := scope.LookupParent(a.text, p.stmt.Pos())
			named[obj] = true
		}
		for _, v := range p.vars {
			t.namedOutside(p, v, place)
		}
		var found []liveMiss
		for v, uses := range t.facts.uses {
			pkgVar := v.Parent() == t.p.types.Scope() // declared anywhere in the package
			if named[v] || place.boxes[v] != nil || !pkgVar && v.Pos() >= p.stmt.Pos() {
				continue
			}
			if _, obj := scope.LookupParent(v.Name(), p.stmt.Pos()); obj != v || t.killedAt(p.stmt, v) {
				continue
			}
			var in []ast.Node // where a use counts as the loop's: the functions it calls, for a package variable
			if pkgVar {
				in = p.called
			}
			if m, ok := t.carried(v, uses, loop, fn, in, place); ok {
				found = append(found, m)
			}
		}
		sort.Slice(found, func(i, j int) bool { return found[i].at < found[j].at })
		for _, m := range found {
			t.reportMiss(p, loop, m)
		}
		t.foreignState(p, loop)
	}
}

// foreignState refuses point p when its loop, or a function of the
// package it calls, calls a function of another package that changes a
// package variable: the image cannot hold it, so a restart would give it
// its value at the loop's first pass. The first such call is reported.
func (t *translator) foreignState(p *point, loop ast.Stmt) {
	for _, body := range append([]ast.Node{loop}, p.called...) {
		if v, at := t.capturedState(body, loop); v != nil {
			t.errorf(p.dir.pos, "//cape:checkpoint: the loop at %s calls a closure that changes %s (%s), a variable of the function that made it, which a point cannot save or name: a restart from an image taken here would give it its value at the loop's first pass; keep that state in a variable the point can name, or leave the point out",
				t.where(loop.Pos()), v.Name(), t.where(at))
			return
		}
		var bad bool
		ast.Inspect(body, func(n ast.Node) bool {
			if bad {
				return false
			}
			if what, fix := t.hiddenState(n); what != "" {
				bad = true
				t.errorf(p.dir.pos, "//cape:checkpoint: the loop at %s %s (%s), whose state a point cannot save: a restart from an image taken here would start it again from where the program's first pass reached the point; %s, or leave the point out",
					t.where(loop.Pos()), what, t.where(n.Pos()), fix)
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, _ := t.externalCallee(call)
			sw := t.foreign.stateWrite(fn)
			if sw == nil {
				return true
			}
			bad = true
			t.errorf(p.dir.pos, "//cape:checkpoint: the loop at %s calls %s.%s (%s), which %s of another package (%s), and a point cannot save it: "+
				"a restart from an image taken here would give it its value at the loop's first pass; keep that state in variables a point can name, or leave the point out",
				t.where(loop.Pos()), fn.Pkg().Name(), funcName(fn), t.where(call.Pos()), sw.change(), t.foreignWhere(sw.pos))
			return false
		})
		if bad {
			return
		}
	}
}

// capturedState returns a variable that body, when the body of a
// function literal, assigns (and where) that it captures from a function
// other than the one holding loop: a counter kept by a closure a
// constructor made (next := counter()). Nil if none.
func (t *translator) capturedState(body ast.Node, loop ast.Stmt) (*types.Var, token.Pos) {
	lit, ok := t.parent[body].(*ast.FuncLit)
	if !ok {
		return nil, token.NoPos
	}
	_, fn := t.outerLoop(loop)
	var found *types.Var
	var at token.Pos
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				lhs = x.Lhs
			}
		case *ast.IncDecStmt:
			lhs = []ast.Expr{x.X}
		}
		for _, l := range lhs {
			id, ok := ast.Unparen(l).(*ast.Ident) // the variable itself: elements are memory, as anywhere
			if !ok {
				continue
			}
			v := t.varOf(id)
			if found != nil || v == nil || v.Parent() == t.p.types.Scope() || within(v.Pos(), lit) || fn != nil && within(v.Pos(), fn) {
				continue
			}
			found, at = v, l.Pos()
		}
		return found == nil
	})
	return found, at
}

// hiddenState says what n, code a point's loop runs, does to state of the
// process that an image does not hold, and how to do without it: reading
// standard input (its position), drawing from math/rand's own generator
// (its state; the runtime seeds it alike on every node, so sequential code
// may use it, and a region refuses it: calls.go). Empty if nothing.
func (t *translator) hiddenState(n ast.Node) (what, fix string) {
	switch x := n.(type) {
	case *ast.SelectorExpr:
		if isPkgVar(t.info, x, "os", "Stdin") {
			return "reads standard input", "read the input before the loop (into a slice the loop indexes by its step)"
		}
	case *ast.CallExpr:
		if t.inRegion(x.Pos()) {
			break
		}
		if what := t.madeElsewhere(x); what != "" {
			return what, "keep that state in variables the point can name"
		}
		fn := t.packageFunc(x)
		if fn == nil {
			break
		}
		switch path := fn.Pkg().Path(); {
		case path == "fmt" && (fn.Name() == "Scan" || fn.Name() == "Scanln" || fn.Name() == "Scanf"):
			return "reads standard input (fmt." + fn.Name() + ")", "read the input before the loop (into a slice the loop indexes by its step)"
		case path == "math/rand" && !strings.HasPrefix(fn.Name(), "New"):
			return "draws from math/rand's own generator (rand." + fn.Name() + ")", "draw from a generator seeded by the step (rand.New(rand.NewSource(int64(step))))"
		}
	}
	return "", ""
}

// madeElsewhere says how call, in a point's loop, changes state an image
// does not hold that another package keeps: a function value another
// package's function returned (a closure counting in its own variable,
// iter.Pull's next), or a pointer method on another package's variable
// that may write it (lib.G.Draw()). Empty if neither.
func (t *translator) madeElsewhere(call *ast.CallExpr) string {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		v := t.varOf(id)
		if v == nil {
			return ""
		}
		for _, s := range t.facts.sources[v] {
			var from *ast.CallExpr
			switch {
			case s.expr != nil:
				from, _ = ast.Unparen(s.expr).(*ast.CallExpr)
			case s.unknown == "a multi-value expression": // next, stop := iter.Pull(seq)
				from = t.callAt(s.pos)
			}
			if from == nil {
				continue
			}
			if fn, _ := t.externalCallee(from); fn != nil {
				return fmt.Sprintf("calls %s, a function value %s.%s made", id.Name, fn.Pkg().Name(), funcName(fn))
			}
		}
		return ""
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || t.info.Selections[sel] == nil {
		return ""
	}
	fn, _ := t.info.Selections[sel].Obj().(*types.Func)
	v := rootVar(t.info, sel.X)
	if fn == nil || v == nil || v.Pkg() == nil || v.Pkg() == t.p.types || !isPackageVar(v) || !pointerRecv(fn) || !t.foreign.mayWrite(fn) {
		return ""
	}
	return fmt.Sprintf("calls %s on %s.%s, another package's variable", funcName(fn), v.Pkg().Name(), v.Name())
}

// callAt returns the call that starts at pos, or nil.
func (t *translator) callAt(pos token.Pos) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(t.fileOf[t.fset.File(pos)], func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && c.Pos() == pos {
			found = c
		}
		return found == nil && n != nil && n.Pos() <= pos && pos < n.End()
	})
	return found
}

// namedOutside refuses a slice a point names that grows by append: its
// elements are on Go's heap, and the image holds the arena and the
// variables' own bytes. A make of numbers (or arrays and structs of them)
// that it is given in sequential code moves to the arena, where the image
// holds it, even if no region writes it (a table of statistics the loop
// keeps), and so does one stored into a field that it is given (u :=
// s.T); one of slices stays (its rows would be on Go's heap: the point's
// run-time check reports it).
func (t *translator) namedOutside(p *point, v *types.Var, place *placement) {
	if _, ok := v.Type().Underlying().(*types.Slice); !ok {
		return
	}
	for _, src := range t.facts.sources[v] {
		var values []ast.Expr // the source, or what is stored into the field it reads (u := s.T)
		if sel, ok := ast.Unparen(src.expr).(*ast.SelectorExpr); ok && t.info.Selections[sel] != nil && t.info.Selections[sel].Kind() == types.FieldVal {
			for _, st := range t.stores.fields[t.info.Selections[sel].Obj().(*types.Var).Origin()] {
				values = append(values, st.expr)
			}
		} else {
			values = []ast.Expr{src.expr}
		}
		for _, e := range values {
			t.placeNamedMake(e, v, place)
		}
		call, ok := ast.Unparen(src.expr).(*ast.CallExpr)
		if !ok {
			continue
		}
		b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
		if !ok {
			continue
		}
		if b.Name() == "append" {
			t.errorf(p.dir.pos, "//cape:checkpoint: %s (%s) cannot be saved: it grows by append, on Go's heap (%s), and a point saves the arena and its variables' own bytes: "+
				"name only slices the parallel regions write, or keep the values in an array or a slice made with make that a region writes", v.Name(), v.Type(), t.where(src.pos))
			return
		}
	}
}

// killedAt reports whether the statements from s on, in s's block, assign
// v a value that does not read it before anything else uses v: v is then
// dead at s (diff = 0 at the top of a time loop's body).
func (t *translator) killedAt(s ast.Stmt, v *types.Var) bool {
	blk, ok := t.parent[s].(*ast.BlockStmt)
	if !ok {
		return false
	}
	uses := func(n ast.Node) bool { return t.namesVar(n, v) }
	for _, st := range blk.List[slices.Index(blk.List, s):] {
		if as, ok := st.(*ast.AssignStmt); ok && (as.Tok == token.ASSIGN || as.Tok == token.DEFINE) {
			rhsReads := slices.ContainsFunc(as.Rhs, func(e ast.Expr) bool { return uses(e) })
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && t.info.Uses[id] == v && !rhsReads {
					return true
				}
			}
		}
		if uses(st) {
			return false
		}
	}
	return false
}

// pointOnce refuses a point in a function that may run more than once: a
// restart restores the image at the point's first reach, so an image
// taken in a later call would be restored in the first (another call's
// loop, with the caller's state of the first call). main and an init
// function run once; so does a function declared in the package, not used
// as a value, that one of them (or another such function) calls, once,
// outside any loop.
func (t *translator) pointOnce(p *point) {
	fn := t.enclosing(p.stmt, isFunc)
	for {
		fd, ok := fn.(*ast.FuncDecl)
		if !ok {
			t.errorf(p.dir.pos, "//cape:checkpoint in a function literal: a restart restores the image at the point's first reach, and a literal may run more than once; put the point in main, or in a function main calls once")
			return
		}
		obj, _ := t.info.Defs[fd.Name].(*types.Func)
		if fd.Recv == nil && (fd.Name.Name == "main" || fd.Name.Name == "init") {
			return // each runs once
		}
		calls := t.facts.calls[obj]
		if obj == nil || t.facts.valueUse[obj] || len(calls) != 1 || t.inLoop(calls[0]) {
			t.errorf(p.dir.pos, "//cape:checkpoint in %s, which may run more than once (%d calls%s): a restart restores the image at the point's first reach, "+
				"which may be in another call than the image's; put the point in main, or in a function main calls once, outside loops",
				fd.Name.Name, len(calls), t.callsWhere(calls))
			return
		}
		fn = t.enclosing(calls[0], isFunc)
	}
}

// callsWhere lists where calls are (": at main.go:3, main.go:9"), or "".
func (t *translator) callsWhere(calls []*ast.CallExpr) string {
	if len(calls) == 0 {
		return ""
	}
	out := ": at "
	for i, c := range calls {
		if i > 0 {
			out += ", "
		}
		out += t.where(c.Pos())
	}
	return out
}

// liveMiss is a variable a point leaves out: at is the change the loop
// makes, through whether it changes what the variable refers to.
type liveMiss struct {
	v       *types.Var
	at      token.Pos
	through bool
}

// outerLoop returns the outermost loop of the function around s that
// holds s, and that function's body, or nil.
func (t *translator) outerLoop(s ast.Stmt) (loop ast.Stmt, fn ast.Node) {
	for n := t.parent[s]; n != nil; n = t.parent[n] {
		switch x := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loop = x.(ast.Stmt)
		case *ast.FuncDecl, *ast.FuncLit:
			return loop, funcBody(x)
		}
	}
	return loop, nil
}

// carried reports whether the loop changes v, through uses, and reads it
// in a later pass or after it: the first change, and whether it changes
// v's referent rather than v. A use in one of called (the bodies of the
// functions the loop calls) counts as one in the loop.
func (t *translator) carried(v *types.Var, uses []*ast.Ident, loop ast.Stmt, fn ast.Node, called []ast.Node, place *placement) (liveMiss, bool) {
	var m liveMiss
	read := false
	for _, u := range uses {
		in := within(u.Pos(), loop) || slices.ContainsFunc(called, func(b ast.Node) bool { return within(u.Pos(), b) })
		if !in && (fn == nil || !within(u.Pos(), fn) || u.Pos() < loop.End()) {
			continue
		}
		read = read || !t.plainAssigned(u)
		if !in || m.at != token.NoPos && m.at < u.Pos() {
			continue
		}
		a := t.access(u)
		switch {
		case t.plainAssigned(u) || a.write && a.loc == locOwn:
			m = liveMiss{v: v, at: u.Pos()}
		case a.write && !t.inRegion(u.Pos()) && !t.arenaHeld(v, place):
			m = liveMiss{v: v, at: u.Pos(), through: true}
		}
	}
	return m, read && m.at != token.NoPos
}

// arenaHeld reports whether v (a slice or a pointer) refers to memory the
// translator places in the arena: one of the values it is given is a
// make, new or &T{...} moved there.
func (t *translator) arenaHeld(v *types.Var, place *placement) bool {
	for _, src := range t.facts.sources[v] {
		switch x := ast.Unparen(src.expr).(type) {
		case *ast.CallExpr:
			if _, ok := place.makes[x]; ok {
				return true
			}
		case *ast.UnaryExpr:
			if _, ok := place.lits[x]; ok {
				return true
			}
		}
	}
	return false
}

// plainAssigned reports whether the use id only receives a value: the
// left side of a plain assignment or a definition.
func (t *translator) plainAssigned(id *ast.Ident) bool {
	as, ok := t.parent[id].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN && as.Tok != token.DEFINE {
		return false
	}
	for _, l := range as.Lhs {
		if l == id {
			return true
		}
	}
	return false
}

// reportMiss reports the variable m that point p leaves out.
func (t *translator) reportMiss(p *point, loop ast.Stmt, m liveMiss) {
	name, typ := m.v.Name(), m.v.Type()
	if why := savable(typ); m.through || why != "" {
		t.errorf(p.dir.pos, "//cape:checkpoint: %s (%s) is used in the loop at %s, which changes it or what it refers to (%s), and a point cannot save it: "+
			"a restart from an image taken here would give it its state at the loop's first pass; keep that state in variables a point can name "+
			"(numbers, arrays and structs of them, slices the parallel regions write), or leave the point out",
			name, typ, t.where(loop.Pos()), t.where(m.at))
		return
	}
	t.errorf(p.dir.pos, "//cape:checkpoint: %s is live here and the loop at %s changes it (%s): name it in the directive "+
		"(a restart from an image taken here would give it its value at the loop's first pass)", name, t.where(loop.Pos()), t.where(m.at))
}

// calledIn returns the bodies of the package's functions, methods and
// function literals that loop may call (statically, through function
// values and interfaces that CAPE can follow), directly or through
// others: a package variable they change is changed by the loop.
func (t *translator) calledIn(loop ast.Stmt) []ast.Node {
	var bodies []ast.Node
	seen := map[any]bool{}
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			// Function values and interface methods too, where CAPE can
			// tell which bodies they may be.
			targets, _ := t.callees(call, func(*types.Var) bool { return false })
			for _, c := range targets {
				var key any
				var body ast.Node
				switch {
				case c.decl != nil && c.decl.Body != nil:
					key, body = c.decl, c.decl.Body
				case c.lit != nil:
					key, body = c.lit, c.lit.Body
				default:
					continue
				}
				if seen[key] {
					continue
				}
				seen[key] = true
				bodies = append(bodies, body)
				visit(body)
			}
			return true
		})
	}
	visit(loop)
	return bodies
}

// placeNamedMake moves e, a make of numbers (or arrays and structs of them)
// outside every region that a variable v a point names takes, to the
// arena, where the image holds it.
func (t *translator) placeNamedMake(e ast.Expr, v *types.Var, place *placement) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return
	}
	if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); !ok || b.Name() != "make" {
		return
	}
	if sl, ok := t.info.TypeOf(call).Underlying().(*types.Slice); ok && pointerFree(sl.Elem()) && !t.inRegion(call.Pos()) && place.makes[call] == "" {
		place.makes[call] = v.Name()
	}
}
