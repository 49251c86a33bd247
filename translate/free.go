package translate

import (
	"sort"

	"go/ast"
	"go/token"
	"go/types"
)

// Reclaiming arena memory.
//
// The Go collector does not see the arena, so memory moved there is
// released only by cape.Free, at the same program point on every node (the
// allocator is deterministic: the same allocations and frees give the same
// addresses everywhere). The translator inserts a free where the program
// provably drops the only reference to an arena allocation: before an
// assignment that overwrites an *owning* variable.
//
// A local slice variable owns its memory when nothing else can refer to
// it: every value it receives is a make, the zero value, or the value of
// another owning variable handed on by a rotation (isRotation): a move
// (`u = next` where next was declared in the same block and is not used
// afterwards), a swap or cycle (`u, next = next, u`; `a, b, c = b, c, a`),
// or both (`prev, cur = cur, next`); and every use of it indexes it,
// takes its length or capacity, ranges over it, copies to or from it,
// compares it with nil, or passes it to a parameter of a function of the
// package that itself only does these things. A sub-slice, an address of
// an element, a capture by a function literal, a store into other memory
// or a call of another package's function makes the variable a non-owner.
// The owners form groups linked by moves; a group with any arena
// allocation has all its makes moved to the arena, so that every value an
// owner drops is arena memory (or nil), and a free is inserted before each
// assignment for each owner on its left that is not on its right (its old
// value loses its only reference there), and at the end of the
// body of a loop for an owner declared there whose value does not move
// (each iteration's variable dies there).
//
// A make moved to the arena inside a sequential loop that no owner
// reclaims is reported as a warning: each time around the loop it takes
// new arena memory for good.

// planFrees finds the owners, moves their groups' makes to the arena
// (place.makes) and returns the frees and the warnings.
func (t *freePlanner) planFrees() {
	place, plan := t.place, t.plan
	owners := t.owners()
	groups := t.ownerGroups(owners)
	arenaGroup := map[int]bool{}
	for v, g := range groups {
		for _, s := range t.facts.sources[v] {
			if call, ok := s.expr.(*ast.CallExpr); ok && place.makes[call] != "" {
				arenaGroup[g] = true
			}
		}
	}
	for v, g := range groups {
		if !arenaGroup[g] {
			delete(owners, v)
			continue
		}
		for _, s := range t.facts.sources[v] {
			if call, ok := s.expr.(*ast.CallExpr); ok && t.isMake(call) && place.makes[call] == "" {
				place.makes[call] = v.Name()
			}
		}
	}
	plan.at = map[*ast.AssignStmt][]*types.Var{}
	for v := range owners {
		for _, s := range t.facts.sources[v] {
			st, ok := t.parent[s.expr].(*ast.AssignStmt)
			if !ok || st.Tok != token.ASSIGN || !t.inList(st) || plan.at[st] != nil {
				continue
			}
			for _, d := range t.dropped(st) {
				if owners[d] {
					plan.at[st] = append(plan.at[st], d)
				}
			}
		}
	}
	plan.atEnd = map[*ast.BlockStmt][]*types.Var{}
	moved := t.movedOwners(owners)
	for v := range owners {
		if blk := t.loopBodyOf(v); blk != nil && !moved[v] {
			plan.atEnd[blk] = append(plan.atEnd[blk], v)
		}
	}
	for _, vs := range plan.atEnd {
		sort.Slice(vs, func(i, j int) bool { return vs[i].Pos() < vs[j].Pos() })
	}
	t.warnUnreclaimed(owners, moved)
}

// movedOwners returns the owners whose value moves to another owner.
func (t *freePlanner) movedOwners(owners map[*types.Var]bool) map[*types.Var]bool {
	moved := map[*types.Var]bool{}
	for v := range owners {
		for _, s := range t.facts.sources[v] {
			if w := t.varOf(s.expr); w != nil && owners[w] {
				moved[w] = true
			}
		}
	}
	return moved
}

// loopBodyOf returns the body of the for or range statement that declares
// v directly (each iteration has its own v), or nil.
func (t *freePlanner) loopBodyOf(v *types.Var) *ast.BlockStmt {
	id := t.defIdentOf(v)
	if id == nil {
		return nil
	}
	st, ok := t.parent[id].(*ast.AssignStmt)
	if !ok || st.Tok != token.DEFINE {
		return nil
	}
	blk, ok := t.parent[st].(*ast.BlockStmt)
	if !ok {
		return nil
	}
	switch l := t.parent[blk].(type) {
	case *ast.ForStmt:
		if l.Body == blk {
			return blk
		}
	case *ast.RangeStmt:
		if l.Body == blk {
			return blk
		}
	}
	return nil
}

// owners returns the local slice variables that own their memory.
func (t *freePlanner) owners() map[*types.Var]bool {
	cands := map[*types.Var]bool{}
	for v := range t.facts.sources {
		if _, ok := v.Type().Underlying().(*types.Slice); !ok || v.IsField() || v.Parent() == nil ||
			v.Parent() == v.Pkg().Scope() || t.mayRunInRegion(t.code, t.defIdentOf(v)) {
			continue
		}
		cands[v] = true
	}
	for changed := true; changed; {
		changed = false
		for v := range cands {
			if !t.owns(v, cands) {
				delete(cands, v)
				changed = true
			}
		}
	}
	return cands
}

// owns reports whether v satisfies the owner conditions, given the other
// candidates.
func (t *freePlanner) owns(v *types.Var, cands map[*types.Var]bool) bool {
	for _, s := range t.facts.sources[v] {
		switch {
		case s.unknown != "" || s.isParam:
			return false
		case s.zero:
		case s.expr == nil:
			return false
		default:
			if !t.ownedValue(v, s.expr, cands) {
				return false
			}
		}
	}
	for _, u := range t.facts.uses[v] {
		if t.funcOf(u) != t.funcOf(v) || !t.ownerUse(u, cands, map[*types.Var]bool{}) {
			return false
		}
	}
	return true
}

// ownedValue reports whether the value e, assigned to v, keeps v an owner:
// a make outside any region, or a value handed on by a rotation of
// candidates.
func (t *freePlanner) ownedValue(v *types.Var, e ast.Expr, cands map[*types.Var]bool) bool {
	if call, ok := e.(*ast.CallExpr); ok {
		return t.isMake(call) && !t.mayRunInRegion(t.code, call)
	}
	w := t.varOf(e)
	if w == nil || !cands[w] || t.mayRunInRegion(t.code, e) {
		return false
	}
	st, ok := t.parent[e].(*ast.AssignStmt)
	if !ok {
		return false // a var declaration from another variable
	}
	return t.isRotation(st, cands)
}

// isRotation reports whether st hands owners' values on without copying a
// reference: every variable on the left is a candidate, named once; every
// value on the right is a make or a candidate named once, and a candidate
// on the right that is not on the left dies at st (a move: it is declared
// in st's block and not used after st). The old values of the variables on
// the left that are not on the right lose their only reference there
// (dropped), so st must be a statement of a list, where their frees go.
// Swaps and cycles (a, b, c = b, c, a) drop nothing.
func (t *freePlanner) isRotation(st *ast.AssignStmt, cands map[*types.Var]bool) bool {
	if st.Tok != token.ASSIGN || len(st.Lhs) != len(st.Rhs) {
		return false
	}
	left := map[*types.Var]bool{}
	for _, l := range st.Lhs {
		v := t.varOf(l)
		if v == nil || !cands[v] || left[v] {
			return false
		}
		left[v] = true
	}
	right := map[*types.Var]bool{}
	for _, r := range st.Rhs {
		if call, ok := ast.Unparen(r).(*ast.CallExpr); ok && t.isMake(call) && !t.mayRunInRegion(t.code, call) {
			continue
		}
		w := t.varOf(r)
		if w == nil || !cands[w] || right[w] || !left[w] && !t.diesAt(w, st) {
			return false
		}
		right[w] = true
	}
	return len(t.dropped(st)) == 0 || t.inList(st)
}

// dropped returns the variables on the left of the assignment st that are
// not on its right, in order: their old values lose a reference at st.
func (t *freePlanner) dropped(st *ast.AssignStmt) []*types.Var {
	right := map[*types.Var]bool{}
	for _, r := range st.Rhs {
		if w := t.varOf(r); w != nil {
			right[w] = true
		}
	}
	var out []*types.Var
	for _, l := range st.Lhs {
		if v := t.varOf(l); v != nil && !right[v] {
			out = append(out, v)
		}
	}
	return out
}

// diesAt reports whether w is declared in the block of st and not used
// after st.
func (t *freePlanner) diesAt(w *types.Var, st *ast.AssignStmt) bool {
	blk, ok := t.parent[st].(*ast.BlockStmt)
	if !ok || !t.declaredIn(w, blk) {
		return false
	}
	for _, u := range t.facts.uses[w] {
		if u.Pos() > st.End() {
			return false
		}
	}
	return true
}

// declaredIn reports whether v is declared by a statement of blk itself.
func (t *freePlanner) declaredIn(v *types.Var, blk *ast.BlockStmt) bool {
	for _, s := range blk.List {
		if s.Pos() <= v.Pos() && v.Pos() < s.End() {
			switch s := s.(type) {
			case *ast.AssignStmt:
				return s.Tok == token.DEFINE
			case *ast.DeclStmt:
				return true
			}
		}
	}
	return false
}

// ownerUse reports whether the use u of a slice variable keeps it an
// owner. params holds the parameters being checked, against recursion.
func (t *freePlanner) ownerUse(u *ast.Ident, cands, params map[*types.Var]bool) bool {
	switch p := t.parent[u].(type) {
	case *ast.IndexExpr:
		if p.X != u {
			return true // an index value
		}
		un, ok := t.parent[p].(*ast.UnaryExpr)
		return !ok || un.Op != token.AND
	case *ast.RangeStmt:
		return p.X == u
	case *ast.BinaryExpr:
		return t.isNil(p.X) || t.isNil(p.Y)
	case *ast.AssignStmt:
		for i, l := range p.Lhs {
			if l == u {
				return true // an assignment to it: a source, checked there
			}
			if i < len(p.Rhs) && p.Rhs[i] == u && len(p.Lhs) == len(p.Rhs) {
				w := t.varOf(l)
				return w != nil && cands[w]
			}
		}
		return false
	case *ast.CallExpr:
		return t.ownerArg(p, u, cands, params)
	}
	return false
}

// ownerArg reports whether passing u as an argument of call keeps it an
// owner: len, cap, copy, or a parameter that only does owner uses.
func (t *freePlanner) ownerArg(call *ast.CallExpr, u *ast.Ident, cands, params map[*types.Var]bool) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := t.info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "copy":
				return true
			}
			return false
		}
	}
	fn := t.staticCallee(call)
	decl := t.facts.decls[fn]
	if fn == nil || decl == nil || call.Ellipsis.IsValid() {
		return false
	}
	sig := fn.Type().(*types.Signature)
	for i, a := range call.Args {
		if a != u {
			continue
		}
		if sig.Variadic() && i >= sig.Params().Len()-1 {
			return false
		}
		pv := sig.Params().At(i)
		if params[pv] {
			return true
		}
		params[pv] = true
		for _, s := range t.facts.sources[pv] {
			if !s.isParam {
				return false // the parameter is reassigned
			}
		}
		for _, pu := range t.facts.uses[pv] {
			if t.funcOf(pu) != t.funcOf(pv) || !t.ownerUse(pu, nil, params) {
				return false
			}
		}
		return true
	}
	return false
}

func (t *freePlanner) isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := t.info.Uses[id].(*types.Nil)
	return isNil
}

// isMake reports whether call is the builtin make.
func (t *freePlanner) isMake(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := t.info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "make"
}

// funcOf returns the innermost function (declaration or literal) around
// a node, or around the declaration of a variable.
func (t *translator) funcOf(x any) ast.Node {
	var n ast.Node
	switch x := x.(type) {
	case ast.Node:
		n = x
	case *types.Var:
		if id := t.defIdentOf(x); id != nil {
			n = id
		}
	}
	if n == nil {
		return nil
	}
	return t.enclosing(n, isFunc)
}

// defIdentOf returns the identifier that declares o, or nil.
func (t *translator) defIdentOf(o types.Object) *ast.Ident { return t.defIdent[o] }

// ownerGroups numbers the groups of owners linked by moves and swaps.
func (t *freePlanner) ownerGroups(owners map[*types.Var]bool) map[*types.Var]int {
	group := map[*types.Var]int{}
	var mark func(v *types.Var, g int)
	mark = func(v *types.Var, g int) {
		if _, ok := group[v]; ok || !owners[v] {
			return
		}
		group[v] = g
		for _, s := range t.facts.sources[v] {
			if w := t.varOf(s.expr); w != nil {
				mark(w, g)
			}
		}
		for _, u := range t.facts.uses[v] {
			if st, ok := t.parent[u].(*ast.AssignStmt); ok {
				for _, l := range st.Lhs {
					if w := t.varOf(l); w != nil {
						mark(w, g)
					}
				}
			}
		}
	}
	n := 0
	for v := range owners {
		if _, ok := group[v]; !ok {
			mark(v, n)
			n++
		}
	}
	return group
}

// warnUnreclaimed warns, in plan, about the arena allocations of place in
// sequential loops that no owner reclaims.
func (t *freePlanner) warnUnreclaimed(owners, moved map[*types.Var]bool) {
	place, plan := t.place, t.plan
	freedAtEnd := map[*types.Var]bool{}
	for _, vs := range plan.atEnd {
		for _, v := range vs {
			freedAtEnd[v] = true
		}
	}
	for call, name := range place.makes {
		if at := t.outParamInLoop(call); at.IsValid() {
			t.warnf(&plan.warnings, call.Pos(), "%s is allocated in the CAPE arena each time %s is called, and it is called in a loop (%s); "+
				"what it replaced is never reclaimed (the arena is not garbage collected): allocate it once before the loop and "+
				"fill it in the function, or make it in the loop's own code where a variable holds it", name, t.enclosingFunc(call).Name.Name, t.where(at))
			continue
		}
		if t.inRegion(call.Pos()) || !t.inLoop(call) || t.madeOnce(call) {
			continue
		}
		// Only a make held by a variable is dropped when the variable is
		// overwritten or goes out of scope; one stored into an element or
		// a field (the rows of a [][]T) stays reachable.
		var v *types.Var
		switch st := t.parent[call].(type) {
		case *ast.AssignStmt:
			for i, r := range st.Rhs {
				if r == call && i < len(st.Lhs) {
					v = t.varOf(st.Lhs[i])
					if v == nil && t.constElem(st.Lhs[i]) {
						// The same element each time around: the
						// make it held before is dropped (a stage).
						t.warnf(&plan.warnings, call.Pos(), "%s is allocated in the CAPE arena each time around this loop and never "+
							"reclaimed (the arena is not garbage collected): allocate the stages once before the loop "+
							"and permute them (k[0], k[1] = k[1], k[0]), or keep each in a variable that is its only "+
							"reference", t.text(st.Lhs[i]))
					}
				}
			}
			if v != nil && owners[v] && (plan.at[st] != nil || moved[v] || freedAtEnd[v]) {
				continue
			}
		case *ast.ValueSpec:
			for i, r := range st.Values {
				if r == call && i < len(st.Names) {
					v = t.varOf(st.Names[i])
				}
			}
		}
		if v == nil {
			continue
		}
		t.warnf(&plan.warnings, call.Pos(), "%s is allocated in the CAPE arena each time around this loop and never reclaimed "+
			"(the arena is not garbage collected): allocate it once before the loop, or let the variable that "+
			"holds it be its only reference and hand it on as its last use (u = next; prev, cur = cur, next)", name)
	}
}

// outParamInLoop returns, for call, a make stored through a pointer
// (*dst = make(...)) outside loops in a function of the package, where a
// sequential loop calls that function, or token.NoPos.
func (t *freePlanner) outParamInLoop(call *ast.CallExpr) token.Pos {
	as, ok := t.parent[call].(*ast.AssignStmt)
	if !ok || t.inRegion(call.Pos()) || t.inLoop(call) {
		return token.NoPos
	}
	stored := false
	for i, r := range as.Rhs {
		if _, star := ast.Unparen(as.Lhs[min(i, len(as.Lhs)-1)]).(*ast.StarExpr); star && r == call {
			stored = true
		}
	}
	d := t.enclosingFunc(call)
	if !stored || d == nil {
		return token.NoPos
	}
	at := token.NoPos
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && !at.IsValid() {
				if fn := t.staticCallee(c); fn != nil && t.facts.decls[fn] == d && t.inLoop(c) && !t.inRegion(c.Pos()) {
					at = c.Pos()
				}
			}
			return !at.IsValid()
		})
	}
	return at
}

// enclosingFunc is the function declaration n is in, or nil.
func (t *freePlanner) enclosingFunc(n ast.Node) *ast.FuncDecl {
	for p := t.parent[n]; p != nil; p = t.parent[p] {
		if d, ok := p.(*ast.FuncDecl); ok {
			return d
		}
	}
	return nil
}

// madeOnce reports whether call, in a loop, is guarded in it by an if
// whose condition is an equality (`if it == 5`, `if hits == nil`): the
// pattern of an allocation made once, which the leak warning leaves out.
func (t *freePlanner) madeOnce(call *ast.CallExpr) bool {
	for n := t.parent[call]; n != nil; n = t.parent[n] {
		switch x := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.IfStmt:
			if b, ok := ast.Unparen(x.Cond).(*ast.BinaryExpr); ok && b.Op == token.EQL && within(call.Pos(), x.Body) {
				return true
			}
		}
	}
	return false
}

// constElem reports whether e is an element of an array or slice variable
// at a constant index (k[1]).
func (t *freePlanner) constElem(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok || t.varOf(ix.X) == nil {
		return false
	}
	switch t.info.TypeOf(ix.X).Underlying().(type) {
	case *types.Array, *types.Slice:
	default:
		return false
	}
	tv, ok := t.info.Types[ix.Index]
	return ok && tv.Value != nil
}

// inLoop reports whether n lies in the body of a for or range statement of
// its function.
func (t *freePlanner) inLoop(n ast.Node) bool {
	for p := t.parent[n]; p != nil && !isFunc(p); p = t.parent[p] {
		switch p.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return true
		}
	}
	return false
}
