package translate

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Private copies that would print something else than go run: the
// directives' clauses give OpenMP's meaning, and go run, ignoring them,
// runs the loop on one variable. A private or firstprivate variable that
// an iteration reads before it assigns it whole carries a value from the
// node's previous iteration (or the copy's start: zero for private),
// where go run carries the previous iteration's; one that the region
// writes and the code after it reads (below it, in the next pass of a loop
// around it, in a function literal or, for a package-level variable,
// another function) holds, after the region, its value from before
// (OpenMP's), where go run holds the last iteration's. Both are refused,
// naming lastprivate where it says what was meant. A lastprivate variable
// that some iterations (or sections) do not assign is handed over by the
// node of the latest one that did (region.condLast), as go run leaves it.
// The copies of parallel sections have checks of their own (secprivate.go).

// privateCarry refuses, for r's private and firstprivate variables, the
// uses whose values would differ from go run's.
func (t *translator) privateCarry(r *region) {
	if r.body == nil {
		return
	}
	for _, v := range r.order {
		clause := r.clauseOf[v]
		if t.refuseClauseAlias(r, v) {
			continue
		}
		if clause == "reduction" && !r.refused[v] {
			t.reductionReads(r, v)
		}
		if clause != "private" && clause != "firstprivate" && clause != "lastprivate" || r.refused[v] {
			continue
		}
		first, written := t.firstAccess(v, r.body)
		if clause == "lastprivate" && (first == nil || r.dir.kind == dirSections) && t.condAssignable(r, v) {
			t.conditionalLast(r, v) // a section, or no iteration, may leave it unassigned
		}
		if t.sectionCopies(r, v, clause) {
			continue
		}
		if first == nil {
			continue
		}
		wholeFirst := (t.assignsWhole(first, v) || t.outParam(first)) && t.alwaysRuns(first, r) || t.firstPassAssigns(r, first, v)
		// every: each iteration assigns it whole (its last value is the
		// last iteration's).
		every := wholeFirst || t.everyIterAssigns(r, v)
		if !wholeFirst && isAggregate(v.Type()) {
			var refused bool
			if wholeFirst, first, refused = t.aggregateFirst(r, v, clause, first); refused {
				continue
			}
		}
		if t.refusePartialLast(r, v) {
			continue
		}
		if se, reset := t.resetReslice(r, v); se != nil {
			t.errorf(se.Pos(), "%s is %s in the parallel loop and reset by %s at %s, which keeps its array: %s here may reach past its length, to elements an earlier iteration left there, which go run's one array holds and the node's copy does not; make it in the iteration (%s = make(...)), or do not slice it past its length",
				v.Name(), clause, t.text(t.stmtOf(reset)), t.where(reset.Pos()), t.text(se), v.Name())
			continue
		}
		if written && !wholeFirst && (clause == "firstprivate" || r.firstLast[v]) && t.writtenLast(r, v) {
			// Written in the loop's last iteration only: no iteration
			// after it reads the copy (if i == n-1 { scale = ... }).
			wholeFirst, every = true, true
		}
		var read *ast.Ident // uncoveredRead's answer, asked once
		uncovered := func() *ast.Ident {
			if read == nil {
				read = t.uncoveredRead(r, v)
			}
			return read
		}
		switch {
		case r.dir.kind == dirFor && clause == "lastprivate" && !every && t.assignsWhole(first, v) && t.condAssignable(r, v) && uncovered() == nil:
			t.conditionalLast(r, v) // assigned in some iterations only
		case r.firstLast[v] && !written:
			// Read only: every copy holds the variable's value, as go
			// run's one variable does.
		case r.dir.kind == dirFor && clause != "firstprivate" && !wholeFirst && uncovered() != nil:
			if !isAggregate(v.Type()) {
				first = uncovered() // the read, not the assignment before it
			}
			listed, holds := clause, "zero"
			if r.firstLast[v] {
				listed, holds = "firstprivate and lastprivate", "its value from before the region"
			}
			t.errorf(first.Pos(), "%s is %s in the parallel loop, but an iteration uses %s before assigning it: its private copy holds %s, or what the node's previous iteration left, where go run holds the previous iteration's value; assign it at the start of the iteration, or list it in firstprivate if it is only read", v.Name(), listed, t.useText(first), holds)
		case r.dir.kind == dirFor && clause == "firstprivate" && written && !wholeFirst && t.writesThrough(v, r.body):
			t.errorf(first.Pos(), "%s is firstprivate in the parallel loop, and the iterations write through it (%s): a copy of a %s reaches the same memory as %s itself, so the clause changes nothing there; leave %s out of the clause (a variable is shared by default), and the writes are to the memory it refers to",
				v.Name(), t.text(t.stmtOf(t.firstWriteThrough(v, r.body))), typeKind(v.Type()), v.Name(), v.Name())
		case r.dir.kind == dirFor && clause == "firstprivate" && written && !wholeFirst:
			t.errorf(first.Pos(), "%s is firstprivate in the parallel loop and an iteration writes it, so the next iteration on the same node would start from that value, where go run's starts from the previous iteration's on any node; assign it whole at the start of the iteration, or use a variable of the iteration", v.Name())
		case r.dir.kind == dirFor && clause == "lastprivate" && !every && written:
			t.refuseUnnotedLast(r, v, first)
		case written && clause != "lastprivate":
			if after := t.readAfter(v, r); after != nil {
				t.errorf(after.Pos(), "%s is %s in the parallel region at %s and written there, but read after it: go run would give its value from the region's last iteration, OpenMP and CAPE its value from before the region; list it in lastprivate, or do not read it after the region", v.Name(), clause, t.where(r.dir.pos))
			}
		}
	}
}

// writesThrough reports whether v is a slice, map or pointer that the
// uses in body write only through (v[i] = x, *v = x, v.f = x on a
// pointer), never assigning v itself.
func (t *translator) writesThrough(v *types.Var, body ast.Node) bool {
	switch v.Type().Underlying().(type) {
	case *types.Slice, *types.Map, *types.Pointer:
	default:
		return false
	}
	for _, u := range t.facts.uses[v] {
		if !within(u.Pos(), body) || !t.writesVar(u) {
			continue
		}
		if _, amp := t.parent[u].(*ast.UnaryExpr); amp || t.assignsWhole(u, v) {
			return false // v = …, or &v
		}
	}
	return t.firstWriteThrough(v, body) != nil
}

// firstWriteThrough returns the first use of v in body that writes
// through it, or nil.
func (t *translator) firstWriteThrough(v *types.Var, body ast.Node) *ast.Ident {
	var first *ast.Ident
	for _, u := range t.facts.uses[v] {
		if within(u.Pos(), body) && t.writesVar(u) && !t.assignsWhole(u, v) && (first == nil || u.Pos() < first.Pos()) {
			first = u
		}
	}
	return first
}

// typeKind names the kind of typ's underlying type: slice, map, pointer.
func typeKind(typ types.Type) string {
	switch typ.Underlying().(type) {
	case *types.Slice:
		return "slice"
	case *types.Map:
		return "map"
	case *types.Pointer:
		return "pointer"
	}
	return typ.String()
}

// aggregateFirst answers privateCarry for an array or struct v whose first
// use first (of clause's copy) is not a whole assignment that always runs:
// its elements may all be written before they are read (a buffer filled
// by a loop), which the translator does not follow; only a first use that
// reads tells it carries a value, or, for a struct, a field whose first
// use reads it. It returns whether the copy is assigned before it is read,
// the use to name, and whether it refused a read of an element not
// assigned before.
func (t *translator) aggregateFirst(r *region, v *types.Var, clause string, first *ast.Ident) (bool, *ast.Ident, bool) {
	wholeFirst := !t.readsFirst(first)
	if f := t.fieldReadFirst(v, r.body); wholeFirst && f != nil {
		wholeFirst, first = false, f
	}
	if _, isStruct := v.Type().Underlying().(*types.Struct); wholeFirst && isStruct {
		// A field read that no assignment before it covers (t.In.X = i
		// then t.In.Y; t.A = i in one branch, t = P{…} in the other);
		// for a firstprivate copy, of a field the iterations write.
		if u := t.uncoveredFieldRead(r, v, clause == "firstprivate"); u != nil {
			wholeFirst, first = false, u
		}
	}
	var rd, w *ast.Ident // a read of an element not assigned before, and the first element write
	if wholeFirst {
		rd, w = t.elementCarry(r, v, clause == "firstprivate")
	}
	if rd == nil {
		return wholeFirst, first, false
	}
	fix, holds := fmt.Sprintf("assign the whole array at the start of the iteration (%s = %s{})", v.Name(), types.TypeString(v.Type(), types.RelativeTo(v.Pkg()))), "zero"
	if clause == "firstprivate" {
		fix, holds = fmt.Sprintf("copy it whole into an array of the iteration (own := %s) and use that", v.Name()), "its value from before the region"
	}
	t.errorf(rd.Pos(), "%s is %s in the parallel loop, but an iteration reads %s here without assigning it first (it assigns %s at %s): the copy's element holds what the node's previous iteration left, or %s, where go run's array holds the previous iteration's value; %s, or declare it inside the loop",
		v.Name(), clause, t.elemText(rd), t.elemText(w), t.where(w.Pos()), holds, fix)
	return wholeFirst, first, true
}

// refusePartialLast refuses a lastprivate array or struct v of r that an
// iteration assigns only part of (partialLast), and reports whether it did.
func (t *translator) refusePartialLast(r *region, v *types.Var) bool {
	u := t.partialLast(r, v)
	if u == nil {
		return false
	}
	what, zero := "array", fmt.Sprintf("%s = %s{}", v.Name(), types.TypeString(v.Type(), types.RelativeTo(v.Pkg())))
	if _, ok := v.Type().Underlying().(*types.Struct); ok {
		what = "struct"
	}
	t.errorf(u.Pos(), "%s is lastprivate in the parallel loop, but an iteration assigns only part of it here (%s) and may not assign the whole %s: the node that ran the last iteration hands back its copy, whose other parts hold what that node's earlier iterations left (or zero), where go run's one variable keeps what earlier iterations assigned; assign the whole %s at the start of the iteration (%s), or keep it shared and write one element per iteration into a result array",
		v.Name(), t.text(t.stmtOf(u)), what, what, zero)
	return true
}

// everyIterAssigns reports whether every iteration of r's loop assigns
// the whole of v before it can end: the statements of the body before
// the first that holds a continue of the loop assign it (placeAssigned).
func (t *translator) everyIterAssigns(r *region, v *types.Var) bool {
	if r.dir.kind != dirFor || hasGoto(r.body) {
		return false
	}
	var prefix []ast.Stmt
	c := firstContinue(r)
	for _, s := range r.body.List {
		if c.IsValid() && c < s.End() {
			break
		}
		prefix = append(prefix, s)
	}
	return t.placeAssigned(r, v, prefix, elemKey{}, 0)
}

// refuseUnnotedLast refuses the lastprivate variable v of r, which not
// every iteration assigns, where a write of it (or its first use first)
// is one after which the iteration cannot be noted (unnotedWrite).
func (t *translator) refuseUnnotedLast(r *region, v *types.Var, first *ast.Ident) {
	u, why := t.unnotedWrite(r, v)
	if u == nil {
		u, why = first, "not a plain assignment"
	}
	text := t.text(t.stmtOf(u))
	if rg, ok := t.stmtOf(u).(*ast.RangeStmt); ok {
		lhs := t.text(rg.Key)
		if rg.Value != nil {
			lhs += ", " + t.text(rg.Value)
		}
		text = fmt.Sprintf("for %s = range %s", lhs, t.text(rg.X))
	}
	t.errorf(u.Pos(), "%s is lastprivate in the parallel loop, but not every iteration assigns it, and CAPE cannot note which iteration assigned it last through this write (%s, %s): the node that ran the last iteration would hand back its copy, where go run keeps the value of the latest iteration that assigned it; assign it whole with a statement of its own in the loop's body (%s = …)",
		v.Name(), text, why, v.Name())
}

// uncoveredRead returns the first use of the private variable v in r's
// body that may read it before the iteration assigned it whole (a use
// that is not such an assignment, with no statement before it in its
// block or the blocks around it that always assigns v, coveredBefore, nor
// the header of a statement around it, headerAssigns), or
// nil where every read follows an assignment of the iteration's, however
// deep in an if or an inner loop (if c { t = f(i); a[i] = t }).
func (t *translator) uncoveredRead(r *region, v *types.Var) *ast.Ident {
	return t.uncoveredFieldRead(r, v, false)
}

// uncoveredFieldRead is uncoveredRead for a struct v whose parts the
// iteration assigns: the first use that reads a part of v (a field, a
// field's field, an element) which no statement before it assigns, nor a
// place holding it; plain assignments of parts are not reads. With
// written, only a read of a part that a write of the body may reach
// counts (a firstprivate copy's other parts hold their values from before
// the region).
func (t *translator) uncoveredFieldRead(r *region, v *types.Var, written bool) *ast.Ident {
	jumps := hasGoto(r.body)
	var writes []elemKey
	for _, u := range t.facts.uses[v] {
		if within(u.Pos(), r.body) && t.writesVar(u) {
			writes = append(writes, t.partKey(r, u))
		}
	}
	for _, u := range t.facts.uses[v] {
		if !within(u.Pos(), r.body) || t.plainPartWrite(u) {
			continue
		}
		if rg, ok := t.parent[u].(*ast.RangeStmt); ok && rg.Tok == token.ASSIGN && (rg.Key == ast.Expr(u) || rg.Value == ast.Expr(u)) {
			continue // for _, v = range xs assigns it (when xs has elements)
		}
		key := t.partKey(r, u)
		if written && !slices.ContainsFunc(writes, func(w elemKey) bool { return overlaps(w, key) }) {
			continue
		}
		if jumps || !t.coveredBefore(r, v, u, key) && !t.headerAssigns(r, v, u, key) {
			return u
		}
	}
	return nil
}

// partKey is the place of v the use u reaches (elemPlace), or the whole of
// v (nil) where that is not known.
func (t *translator) partKey(r *region, u *ast.Ident) elemKey {
	key, plain := t.elemPlace(r, u)
	if !plain || slices.Contains(key, "") {
		return nil
	}
	return key
}

// overlaps reports whether the places a and b share memory: one holds
// the other.
func overlaps(a, b elemKey) bool {
	n := min(len(a), len(b))
	return slices.Equal(a[:n], b[:n])
}

// plainPartWrite reports whether the use u is the left side, or the root
// of the left side, of a plain assignment (t = x, t.A = x, t.V[0] = x).
func (t *translator) plainPartWrite(u *ast.Ident) bool {
	var cur ast.Node = u
	for {
		switch p := t.parent[cur].(type) {
		case *ast.SelectorExpr:
			if p.X != cur {
				return false
			}
		case *ast.IndexExpr:
			if p.X != cur {
				return false
			}
			if _, isArray := t.info.TypeOf(p.X).Underlying().(*types.Array); !isArray {
				return false // through a slice or map: not the variable's own part
			}
		case *ast.ParenExpr:
		case *ast.AssignStmt:
			e, ok := cur.(ast.Expr)
			return ok && p.Tok == token.ASSIGN && slices.Contains(p.Lhs, e)
		default:
			return false
		}
		cur = t.parent[cur]
	}
}

// refuseClauseAlias refuses, and reports, a use in r of a pointer to its
// clause variable v taken before it (clauseAlias), unless v is a
// firstprivate that r never writes.
func (t *translator) refuseClauseAlias(r *region, v *types.Var) bool {
	u, p, amp := t.clauseAlias(r, v)
	if u == nil || r.refused[v] || t.readOnlyFirstprivate(r, v) {
		return false
	}
	t.errorf(u.Pos(), "%s points to %s (%s at %s), which is in the %s clause of the parallel %s: each node works on its own copy of %s there, and %s still points to the variable as it was before the region, where go run reads its running value; use %s itself in the region",
		p.Name(), v.Name(), t.text(t.stmtOf(amp)), t.where(amp.Pos()), r.clauseOf[v], regionWord(r), v.Name(), p.Name(), v.Name())
	r.refused[v] = true
	return true
}

// readOnlyFirstprivate reports whether v is firstprivate in r and r never
// writes it: every copy then holds v's value, as what points to v reads.
func (t *translator) readOnlyFirstprivate(r *region, v *types.Var) bool {
	if r.clauseOf[v] != "firstprivate" {
		return false
	}
	_, written := t.firstAccess(v, r.body)
	return !written
}

// clauseAlias returns a use, in r's body, of a pointer p given the
// address of the clause variable v outside the region (p := &v), with p
// and the address expression; nil if there is none. Through p the region
// would read or write the variable itself, not the node's copy.
func (t *translator) clauseAlias(r *region, v *types.Var) (*ast.Ident, *types.Var, *ast.UnaryExpr) {
	for _, id := range t.facts.uses[v] {
		amp, ok := t.parent[t.outerParens(id)].(*ast.UnaryExpr)
		if !ok || amp.Op != token.AND || within(amp.Pos(), r.body) {
			continue
		}
		var p *types.Var
		switch x := t.parent[t.outerParens(amp)].(type) {
		case *ast.AssignStmt:
			for i, rhs := range x.Rhs {
				if ast.Unparen(rhs) == ast.Expr(amp) && i < len(x.Lhs) && len(x.Lhs) == len(x.Rhs) {
					p = t.varOf(x.Lhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, val := range x.Values {
				if ast.Unparen(val) == ast.Expr(amp) && i < len(x.Names) && len(x.Names) == len(x.Values) {
					p, _ = t.info.Defs[x.Names[i]].(*types.Var)
				}
			}
		}
		if p == nil {
			continue
		}
		for _, u := range t.facts.uses[p] {
			if within(u.Pos(), r.body) {
				return u, p, amp
			}
		}
	}
	return nil, nil, nil
}

// hasGoto reports whether body holds a goto statement.
func hasGoto(body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO {
			found = true
		}
		return !found
	})
	return found
}

// neverEmpty reports whether the range statement rg has at least one
// element to range over whatever the program does: an array (or a
// pointer to one) of positive length, or a positive integer constant.
func (t *translator) neverEmpty(rg *ast.RangeStmt) bool {
	tv, ok := t.info.Types[rg.X]
	if !ok {
		return false
	}
	if tv.Value != nil {
		return tv.Value.Kind() == constant.Int && constant.Sign(tv.Value) > 0
	}
	typ := tv.Type.Underlying()
	if ptr, ok := typ.(*types.Pointer); ok {
		typ = ptr.Elem().Underlying()
	}
	arr, ok := typ.(*types.Array)
	return ok && arr.Len() > 0
}

// reductionReads refuses a use of the reduction variable v in r's body
// other than in a statement that updates it by its operator (sum += x,
// sum = sum + x, best = max(best, x), h[k]++; reductionWrite refuses the
// other writes): each node reads its own partial result there, where go
// run reads the running total.
func (t *translator) reductionReads(r *region, v *types.Var) {
	for _, u := range t.facts.uses[v] {
		if !within(u.Pos(), r.body) {
			continue
		}
		if stmt := t.stmtOf(u); stmt != nil && t.writesReduction(stmt, v) {
			if t.reductionWrite(r, v, stmt) {
				return
			}
			continue
		}
		if t.extremumIf(u, v, r.redOp[v]) != nil {
			if allInteger(termBasics(v.Type())) {
				continue
			}
			t.errorf(u.Pos(), "%s is a %s reduction variable of the parallel loop, compared here to keep the %s value: on a floating-point variable the comparison skips NaN and keeps the first of -0 and +0 it meets, where the reduction combines the nodes' values as the builtin %s does; write %s = %s(%s, …) instead (or math.%s)",
				v.Name(), r.redOp[v], map[string]string{"max": "larger", "min": "smaller"}[r.redOp[v]], r.redOp[v], v.Name(), r.redOp[v], v.Name(), strings.ToUpper(r.redOp[v][:1])+r.redOp[v][1:])
			return
		}
		t.errorf(u.Pos(), "%s is a reduction variable of the parallel %s, but read here other than to update it: each node would read its own partial result, where go run reads the running total; read it after the %s", v.Name(), regionWord(r), regionWord(r))
		return
	}
}

// stmtOf returns the innermost statement around n, or nil.
func (t *translator) stmtOf(n ast.Node) ast.Stmt {
	for cur := t.parent[n]; cur != nil; cur = t.parent[cur] {
		if s, ok := cur.(ast.Stmt); ok {
			return s
		}
	}
	return nil
}

// extremumIf returns the if statement whose condition the use u of the
// reduction variable v reads where it is if e > v { v = e } under
// reduction(max:v) (also e >= v, v < e, v <= e; under min, the other way
// round), possibly beside a guard that does not read v (c && e > v): an
// if with no else, whose body is that one assignment, e being
// the same expression in both places, made of variables, constants,
// indexing, fields, operators, conversions, len and cap (which read the
// same value twice) and not naming v. Each node's copy of v, starting from
// the operator's identity, then ends as the largest (smallest) e of its
// iterations, and the reduction of the copies with v's value before the
// loop is go run's v, for integers. Nil otherwise.
func (t *translator) extremumIf(u *ast.Ident, v *types.Var, op string) *ast.IfStmt {
	cmp, ok := t.parent[u].(*ast.BinaryExpr)
	if !ok || op != "max" && op != "min" {
		return nil
	}
	cond := ast.Expr(cmp)
	if and, ok := t.parent[cmp].(*ast.BinaryExpr); ok && and.Op == token.LAND {
		// if x[i] == best && i < at { at = i }: a guard that does not
		// read v only chooses the iterations whose e competes.
		other := and.X
		if other == ast.Expr(cmp) {
			other = and.Y
		}
		if !t.extremumTerm(other, v) {
			return nil
		}
		cond = and
	}
	ifs, ok := t.parent[cond].(*ast.IfStmt)
	if !ok || ifs.Cond != cond || ifs.Else != nil || ifs.Init != nil && t.namesVar(ifs.Init, v) || len(ifs.Body.List) != 1 {
		return nil
	}
	as, ok := ifs.Body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil
	}
	if id, ok := as.Lhs[0].(*ast.Ident); !ok || t.info.Uses[id] != v {
		return nil
	}
	e, greater := cmp.Y, cmp.Op == token.LSS || cmp.Op == token.LEQ // v < e
	if cmp.Y == ast.Expr(u) {
		e, greater = cmp.X, cmp.Op == token.GTR || cmp.Op == token.GEQ // e > v
	}
	switch cmp.Op {
	case token.GTR, token.GEQ, token.LSS, token.LEQ:
	default:
		return nil
	}
	if greater != (op == "max") || !t.extremumTerm(e, v) || types.ExprString(e) != types.ExprString(as.Rhs[0]) {
		return nil
	}
	return ifs
}

// extremumTerm reports whether e, a term of a guarded min or max of the
// reduction variable v, gives one value evaluated twice in a row and does
// nothing else, without reading v: pureExpr, or, where v is a local
// variable (which no function of the program reads but through its name),
// calls too that pureCall allows (score(i) for a score that returns an
// expression of its arguments).
func (t *translator) extremumTerm(e ast.Expr, v *types.Var) bool {
	if t.namesVar(e, v) {
		return false
	}
	local := v.Pkg() != nil && v.Parent() != v.Pkg().Scope()
	return t.pureExprCalls(e, local)
}

// pureExpr reports whether evaluating e twice in a row gives one value
// and does nothing else: it is made of identifiers, constants, indexing,
// fields, dereferences, operators (no receive), conversions, len and cap.
func (t *translator) pureExpr(e ast.Expr) bool {
	return t.pureExprCalls(e, false)
}

// pureExprCalls is pureExpr, also allowing the calls pureCall allows
// where calls is set.
func (t *translator) pureExprCalls(e ast.Expr, calls bool) bool {
	pure := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil, *ast.Ident, *ast.BasicLit, *ast.ParenExpr, *ast.SelectorExpr, *ast.IndexExpr, *ast.BinaryExpr, *ast.StarExpr:
		case *ast.UnaryExpr:
			pure = pure && n.Op != token.ARROW
		case *ast.CallExpr:
			if tv, ok := t.info.Types[n.Fun]; ok && tv.IsType() || calls && t.pureCall(n) {
				break
			}
			if fn := t.packageFunc(n); fn != nil && (fn.Pkg().Path() == "math" || fn.Pkg().Path() == "math/bits" || fn.Pkg().Path() == "math/cmplx") {
				break // (math.IsInf(x, 0), math.Abs(x): a value of their arguments alone)
			}
			b, builtin := t.info.Uses[calleeIdent(n)].(*types.Builtin)
			pure = pure && builtin && slices.Contains([]string{"len", "cap", "min", "max", "real", "imag", "complex"}, b.Name())
		default:
			pure = false
		}
		return pure
	})
	return pure
}

// namesVar reports whether n uses the variable v.
func (t *translator) namesVar(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && t.info.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// conditionalLast makes v, a lastprivate variable of r, one that the
// node of the latest iteration or section assigning it hands over
// (region.condLast).
func (t *translator) conditionalLast(r *region, v *types.Var) {
	if r.condLast == nil {
		r.condLast = map[*types.Var]bool{}
	}
	r.condLast[v] = true
}

// writtenLast reports whether every write of v in r's loop body lies in
// a block that only the loop's last iteration runs (if i == n-1 {...}).
func (t *translator) writtenLast(r *region, v *types.Var) bool {
	if r.dir.kind != dirFor {
		return false
	}
	fc := t.formsOf(r)
	for _, u := range t.facts.uses[v] {
		if !within(u.Pos(), r.body) || !t.writesVar(u) {
			continue
		}
		if b := t.onceBlock(r, u); b == nil || !fc.lastIteration(b) {
			return false
		}
	}
	return true
}

// condAssignable reports whether every write of v in r's body is a plain
// assignment of the whole variable, a statement of a statement list (not
// in a function literal), after which the iteration's index can be noted.
func (t *translator) condAssignable(r *region, v *types.Var) bool {
	u, _ := t.unnotedWrite(r, v)
	return u == nil
}

// unnotedWrite returns the first write of v in r's body after which
// condAssignable cannot note the iteration's index, and why, or nil.
func (t *translator) unnotedWrite(r *region, v *types.Var) (*ast.Ident, string) {
	for _, u := range t.facts.uses[v] {
		if !within(u.Pos(), r.body) || !t.writesVar(u) {
			continue
		}
		if lit := t.enclosingLit(u); lit != nil && within(lit.Pos(), r.body) {
			return u, "in a function literal"
		}
		if !t.assignsWhole(u, v) {
			return u, "of a part, or an update"
		}
		as, ok := t.parent[u].(*ast.AssignStmt)
		if !ok {
			return u, "in a range clause"
		}
		switch t.parent[as].(type) {
		case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		default:
			return u, "in an if's, for's or switch's own statement"
		}
	}
	return nil, ""
}

// fieldReadFirst returns, for a struct v that body uses only through
// its fields (st.n, st.sum), the use of a field whose first use in body
// reads it (st.sum += x before any st.sum = ...), or nil.
func (t *translator) fieldReadFirst(v *types.Var, body ast.Node) *ast.Ident {
	if _, ok := v.Type().Underlying().(*types.Struct); !ok {
		return nil
	}
	first := map[string]*ast.Ident{}
	for _, u := range t.facts.uses[v] {
		if !within(u.Pos(), body) {
			continue
		}
		sel, ok := t.parent[u].(*ast.SelectorExpr)
		if !ok || sel.X != ast.Expr(u) {
			return nil // the whole struct: its fields are not followed
		}
		if f := first[sel.Sel.Name]; f == nil || u.Pos() < f.Pos() {
			first[sel.Sel.Name] = u
		}
	}
	var out *ast.Ident
	for _, u := range first {
		if t.readsFirst(u) && !t.lengthOnly(u) && (out == nil || u.Pos() < out.Pos()) {
			out = u
		}
	}
	return out
}

// useText names what the use id reaches: v, or v.f where it selects a
// field.
func (t *translator) useText(id *ast.Ident) string {
	if sel, ok := t.parent[id].(*ast.SelectorExpr); ok && sel.X == ast.Expr(id) {
		return id.Name + "." + sel.Sel.Name
	}
	return "it"
}

// firstAccess returns the first use of v in body, in source order, and
// whether body writes v anywhere (assigns it, an element or a field of
// it, or takes its address).
func (t *translator) firstAccess(v *types.Var, body ast.Node) (first *ast.Ident, written bool) {
	for _, u := range t.facts.uses[v] {
		if !within(u.Pos(), body) || t.lengthOnly(u) {
			continue
		}
		if t.identityUpdate(u) {
			continue // x += 0: neither a read that matters nor a write
		}
		if first == nil || u.Pos() < first.Pos() {
			first = u
		}
		written = written || t.writesVar(u)
	}
	return first, written
}

// lengthOnly reports whether the use id reads only its variable's length
// or whether it is nil: len(v), cap(v), v == nil, or for k := range v
// without a value; not for a string, whose length is part of its value.
func (t *translator) lengthOnly(id *ast.Ident) bool {
	switch p := t.parent[id].(type) {
	case *ast.RangeStmt:
		return p.X == ast.Expr(id) && p.Value == nil && !isString(t.info.TypeOf(id))
	case *ast.CallExpr:
		b, ok := t.info.Uses[calleeIdent(p)].(*types.Builtin)
		return ok && (b.Name() == "len" || b.Name() == "cap") && !isString(t.info.TypeOf(id))
	case *ast.BinaryExpr:
		if p.Op != token.EQL && p.Op != token.NEQ {
			return false
		}
		other := p.Y
		if other == ast.Expr(id) {
			other = p.X
		}
		tv, ok := t.info.Types[other]
		return ok && tv.IsNil()
	}
	return false
}

// outParam reports whether the use id is &v handed to a function of the
// package that assigns the pointer's target whole before reading it
// (stats(xs, &mean) with *mean = ... first), by a statement of the
// function's body that runs whenever it is called (runsFirst).
func (t *translator) outParam(id *ast.Ident) bool {
	amp, ok := t.parent[id].(*ast.UnaryExpr)
	if !ok || amp.Op != token.AND {
		return false
	}
	call, ok := t.parent[amp].(*ast.CallExpr)
	if !ok || call.Ellipsis.IsValid() {
		return false
	}
	fn := t.staticCallee(call)
	if fn == nil || t.facts.decls[fn] == nil || t.facts.decls[fn].Body == nil {
		return false
	}
	d := t.facts.decls[fn]
	k := slices.Index(call.Args, ast.Expr(amp))
	var param *types.Var
	for _, f := range d.Type.Params.List {
		for _, name := range f.Names {
			if k == 0 {
				param, _ = t.info.Defs[name].(*types.Var)
			}
			k--
		}
	}
	if param == nil {
		return false
	}
	var first *ast.Ident
	for _, u := range t.facts.uses[param] {
		if within(u.Pos(), d.Body) && (first == nil || u.Pos() < first.Pos()) {
			first = u
		}
	}
	if first == nil || !t.runsFirst(first, d.Body) {
		return false
	}
	if t.fillsRange(first, param) {
		return true
	}
	star, ok := t.parent[first].(*ast.StarExpr)
	as, ok2 := t.parent[star].(*ast.AssignStmt)
	if !ok || !ok2 || as.Tok != token.ASSIGN || len(as.Lhs) != len(as.Rhs) {
		return false
	}
	for j, l := range as.Lhs {
		if l == ast.Expr(star) {
			reads := false
			ast.Inspect(as.Rhs[j], func(n ast.Node) bool {
				if x, ok := n.(*ast.Ident); ok && t.varOf(x) == param {
					reads = true
				}
				return !reads
			})
			return !reads
		}
	}
	return false
}

// firstPassAssigns reports whether the use first of v lies in an if
// statement whose body assigns v whole and which runs its body in the
// first pass of an inner loop that runs at least once in every iteration:
// if k == lo || x < best { best = x }, the if a statement of the loop's
// own, the loop one of r's body's (an argmin).
func (t *translator) firstPassAssigns(r *region, first *ast.Ident, v *types.Var) bool {
	if r.dir.kind != dirFor {
		return false
	}
	var ifs *ast.IfStmt
	for cur := ast.Node(first); cur != nil && cur != ast.Node(r.body); cur = t.parent[cur] {
		if s, ok := cur.(*ast.IfStmt); ok {
			ifs = s
		}
	}
	if ifs == nil {
		return false
	}
	loop, ok := t.parent[t.parent[ifs]].(*ast.ForStmt)
	if !ok || t.parent[ifs] != ast.Node(loop.Body) || t.parent[loop] != ast.Node(r.body) {
		return false
	}
	or, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
	for ok && or.Op == token.LOR {
		if l, isOr := ast.Unparen(or.X).(*ast.BinaryExpr); isOr && l.Op == token.LOR {
			or = l
			continue
		}
		break
	}
	if !ok || or.Op != token.LOR {
		return false
	}
	eq, ok := ast.Unparen(or.X).(*ast.BinaryExpr)
	if !ok || eq.Op != token.EQL || first.Pos() < or.Y.Pos() && within(first.Pos(), ifs.Cond) {
		return false
	}
	k := t.varOf(eq.X)
	if k == nil {
		return false
	}
	fc := t.formsOf(r)
	cr, ok := fc.counterRanges()[symbolKey(k)]
	lo, ok2 := fc.form(eq.Y, 0)
	if !ok || !ok2 || len(lo.add(cr.lo, -1)) > 0 || cr.count < 1 && !fc.runsOnce(loop, cr) {
		return false // not the counter's first value, or a loop that may not run
	}
	for _, st := range ifs.Body.List {
		if as, ok := st.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && t.varOf(id) == v && t.assignsWhole(id, v) {
					return true
				}
			}
		}
	}
	return false
}

// fillsRange reports whether the use first of param, a pointer to an
// array, is the range of a fill loop of it (fillsWhole: for k := range p
// { p[k] = e; … }, no break that could end it early) whose e does not
// read p.
func (t *translator) fillsRange(first *ast.Ident, param *types.Var) bool {
	rg, ok := t.parent[first].(*ast.RangeStmt)
	if !ok || rg.X != ast.Expr(first) || !t.fillsWhole(param, rg) {
		return false
	}
	return !t.namesVar(rg.Body.List[0].(*ast.AssignStmt).Rhs[0], param)
}

// runsFirst reports whether the statement holding the use id is one of
// body's own (not under an if, a loop or a switch) and no statement of
// body before it may leave it (a return).
func (t *translator) runsFirst(id *ast.Ident, body *ast.BlockStmt) bool {
	s := t.stmtOf(id)
	k := slices.Index(body.List, s)
	return k >= 0 && !leavesEarly(body.List[:k])
}

// identityUpdate reports whether the use id is the whole left side of an
// update that leaves its value as it is (x += 0, x *= 1).
func (t *translator) identityUpdate(id *ast.Ident) bool {
	as, ok := t.parent[id].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || as.Lhs[0] != ast.Expr(id) || len(as.Rhs) != 1 {
		return false
	}
	tv, ok := t.info.Types[as.Rhs[0]]
	if !ok || tv.Value == nil {
		return false
	}
	switch v := tv.Value.ExactString(); as.Tok {
	case token.ADD_ASSIGN, token.SUB_ASSIGN, token.OR_ASSIGN, token.XOR_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN:
		return v == "0"
	case token.MUL_ASSIGN, token.QUO_ASSIGN:
		return v == "1"
	}
	return false
}

// mayWrite reports whether the use id may write its variable's own
// storage: writesVar, or what access counts as a write of it (a method
// with a pointer receiver, v[:] handed to a function or copy).
func (t *translator) mayWrite(id *ast.Ident) bool {
	if t.writesVar(id) {
		return true
	}
	a := t.access(id)
	return a.write && a.loc == locOwn
}

// writesVar reports whether the use id writes its variable: the root of
// an assignment's or an increment's left side, or an address taken.
func (t *translator) writesVar(id *ast.Ident) bool {
	var cur ast.Node = id
	for {
		p := t.parent[cur]
		switch x := p.(type) {
		case *ast.IndexExpr:
			if x.X != cur {
				return false
			}
		case *ast.SelectorExpr:
			if x.X != cur {
				return false
			}
		case *ast.ParenExpr, *ast.StarExpr:
		case *ast.UnaryExpr:
			return x.Op == token.AND
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if l == cur {
					return true
				}
			}
			return false
		case *ast.IncDecStmt:
			return true
		case *ast.RangeStmt: // for _, v = range xs
			return x.Tok == token.ASSIGN && (x.Key == cur || x.Value == cur)
		default:
			return false
		}
		cur = p
	}
}

// isAggregate reports whether t is an array or a struct, whose elements a
// loop may fill one by one.
func isAggregate(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Array, *types.Struct:
		return true
	}
	return false
}

// alwaysRuns reports whether the statement holding the use id runs in
// every iteration of r's loop before anything else of it: a statement of
// the body's own list (not under an if, a switch or an inner loop), or
// under if v == nil (made once, the first time).
func (t *translator) alwaysRuns(id *ast.Ident, r *region) bool {
	if r.dir.kind != dirFor {
		return true
	}
	if hasGoto(r.body) || continuesBefore(r, id.Pos()) {
		return false // a goto may jump over any statement, a continue over those after it
	}
	var cur ast.Node = id
	for cur != nil {
		p := t.parent[cur]
		if p == ast.Node(r.body) {
			return true
		}
		if ifs, ok := p.(*ast.IfStmt); ok && ifs.Body == cur && t.nilTest(ifs.Cond, t.varOf(id)) {
			cur = p
			continue
		}
		if f, ok := p.(*ast.ForStmt); ok && f.Init == cur {
			cur = p // for j = 0; ...: runs with the loop statement
			continue
		}
		if rg, ok := p.(*ast.RangeStmt); ok && (rg.Key == cur || rg.Value == cur) && t.neverEmpty(rg) {
			cur = p // for k, v = range four: assigned, as the range has elements
			continue
		}
		switch p.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.CaseClause, *ast.CommClause, *ast.FuncLit:
			return false
		}
		cur = p
	}
	return false
}

// continuesBefore reports whether r's loop body holds, before pos, a
// continue of r's loop, which ends an iteration before the statement at
// pos runs.
func continuesBefore(r *region, pos token.Pos) bool {
	c := firstContinue(r)
	return c.IsValid() && c < pos
}

// firstContinue returns the position of the first continue of r's loop in
// its body (one of no inner loop, or naming r's label), or NoPos.
func firstContinue(r *region) token.Pos {
	first := token.NoPos
	var visit func(n ast.Node, inner bool) bool
	visit = func(n ast.Node, inner bool) bool {
		if first.IsValid() || n == nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			if !inner {
				ast.Inspect(n, func(m ast.Node) bool { return m == n || visit(m, true) })
				return false
			}
		case *ast.BranchStmt:
			own := n.Label == nil && !inner || n.Label != nil && r.label != nil && n.Label.Name == r.label.Label.Name
			if n.Tok == token.CONTINUE && own {
				first = n.Pos()
			}
		}
		return !first.IsValid()
	}
	ast.Inspect(r.body, func(n ast.Node) bool { return n == ast.Node(r.body) || visit(n, false) })
	return first
}

// copyDest reports whether the use id is copy's destination: copy(v[:],
// ...) or copy(v, ...), which writes v's elements without reading them.
func (t *translator) copyDest(id *ast.Ident) bool {
	var e ast.Node = id
	if se, ok := t.parent[id].(*ast.SliceExpr); ok && se.X == ast.Expr(id) {
		e = se
	}
	call, ok := t.parent[e].(*ast.CallExpr)
	if !ok || len(call.Args) != 2 || call.Args[0] != e {
		return false
	}
	b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
	return ok && b.Name() == "copy"
}

// nilTest reports whether cond is v == nil.
func (t *translator) nilTest(cond ast.Expr, v *types.Var) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL || v == nil {
		return false
	}
	for _, pair := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		id, ok := ast.Unparen(pair[0]).(*ast.Ident)
		tv, ok2 := t.info.Types[pair[1]]
		if ok && ok2 && t.varOf(id) == v && tv.IsNil() {
			return true
		}
	}
	return false
}

// readsFirst reports whether the use id reads its variable's value: it
// is not the root of a plain assignment's left side (x[k] = v writes
// only).
func (t *translator) readsFirst(id *ast.Ident) bool {
	if t.copyDest(id) {
		return false
	}
	if !t.writesVar(id) {
		return true
	}
	var cur ast.Node = id
	for {
		switch p := t.parent[cur].(type) {
		case *ast.AssignStmt:
			return p.Tok != token.ASSIGN
		case *ast.IncDecStmt, *ast.UnaryExpr:
			return true
		case nil:
			return true
		default:
			cur = p
		}
	}
}

// assignsWhole reports whether the use id is the whole left side of a
// plain assignment (v = e) whose values do not read v.
func (t *translator) assignsWhole(id *ast.Ident, v *types.Var) bool {
	if rg, ok := t.parent[id].(*ast.RangeStmt); ok && rg.Tok == token.ASSIGN && (rg.Key == ast.Expr(id) || rg.Value == ast.Expr(id)) {
		return true // for k, v = range xs
	}
	as, ok := t.parent[id].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN {
		return false
	}
	for _, rhs := range as.Rhs {
		reads := false
		ast.Inspect(rhs, func(n ast.Node) bool {
			if s, ok := n.(*ast.SliceExpr); ok && emptySlice(t, s) {
				return false // v[:0] keeps no value of v, only its array
			}
			if x, ok := n.(*ast.Ident); ok && t.varOf(x) == v {
				reads = true
			}
			return !reads
		})
		if reads {
			return false
		}
	}
	for _, l := range as.Lhs {
		if l == ast.Expr(id) {
			return true
		}
	}
	return false
}

// emptySlice reports whether s is x[:0] or x[0:0].
func emptySlice(t *translator, s *ast.SliceExpr) bool {
	if s.High == nil || s.Slice3 {
		return false
	}
	for _, e := range []ast.Expr{s.Low, s.High} {
		if e == nil {
			continue
		}
		if tv, ok := t.info.Types[e]; !ok || tv.Value == nil || tv.Value.ExactString() != "0" {
			return false
		}
	}
	return true
}

// readAfter returns the use of v that the code after r's statement reaches
// first if it reads v (that code sees its value), else nil. It follows the
// order the code runs in: the rest of each loop around the region, then
// that loop's start again (its next iteration), then the code after it;
// and, run at any time after the region, the functions and function
// literals that read v: any use in another function of a package-level v,
// and a use of v in a literal of r's function outside the region.
func (t *translator) readAfter(v *types.Var, r *region) *ast.Ident {
	if r.fn == nil {
		return nil
	}
	for _, u := range t.facts.uses[v] {
		if within(u.Pos(), r.stmt) || t.assignsWhole(u, v) || t.privateIn(v, u) {
			continue
		}
		if !within(u.Pos(), r.fn) && v.Parent() == v.Pkg().Scope() {
			return u // another function reads the package's variable
		}
		if lit := t.enclosingLit(u); lit != nil && within(u.Pos(), r.fn) && !within(r.stmt.Pos(), lit) && !t.calledInPlace(lit) {
			return u // a function literal of its own: it may run after the region
		}
	}
	from := r.stmt.End()
	var inner ast.Node = r.stmt
	for cur := t.parent[r.stmt]; cur != nil && cur != r.fn; cur = t.parent[cur] {
		switch cur.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
		default:
			continue
		}
		if u := t.firstUseIn(v, from, cur.End()); u != nil {
			return t.unlessAssigned(u, v)
		}
		if within(v.Pos(), cur) {
			return nil // each iteration of cur declares its own v
		}
		if u := t.firstUseIn(v, cur.Pos(), inner.Pos()); u != nil {
			return t.unlessAssigned(u, v) // the loop's next iteration
		}
		from, inner = cur.End(), cur
	}
	if u := t.firstUseIn(v, from, r.fn.End()); u != nil {
		return t.unlessAssigned(u, v)
	}
	return nil
}

// privateIn reports whether the use u of v lies in a region that has its
// own copy of v (private, firstprivate or lastprivate): another loop using
// the same package-level scratch variable.
func (t *translator) privateIn(v *types.Var, u *ast.Ident) bool {
	for _, o := range t.regions {
		switch o.clauseOf[v] {
		case "private", "firstprivate", "lastprivate":
			if o.body != nil && within(u.Pos(), o.body) {
				return true
			}
		}
	}
	return false
}

// firstUseIn returns the first use of v in source order at or after from
// and before to, not counting those in a region with its own copy of v.
func (t *translator) firstUseIn(v *types.Var, from, to token.Pos) *ast.Ident {
	var first *ast.Ident
	for _, u := range t.facts.uses[v] {
		if u.Pos() >= from && u.Pos() < to && (first == nil || u.Pos() < first.Pos()) && !t.privateIn(v, u) {
			first = u
		}
	}
	return first
}

// unlessAssigned returns u, or nil if u assigns v whole.
func (t *translator) unlessAssigned(u *ast.Ident, v *types.Var) *ast.Ident {
	if t.assignsWhole(u, v) {
		return nil
	}
	return u
}

// calledInPlace reports whether lit is called where it is written
// (func() { ... }()), not deferred or started as a goroutine: it runs at
// its place in the code.
func (t *translator) calledInPlace(lit *ast.FuncLit) bool {
	if !t.madeToCall(lit) {
		return false
	}
	switch t.parent[t.parent[lit]].(type) {
	case *ast.DeferStmt, *ast.GoStmt:
		return false
	}
	return true
}

// enclosingLit returns the innermost function literal holding n, or nil.
func (t *translator) enclosingLit(n ast.Node) *ast.FuncLit {
	for cur := t.parent[n]; cur != nil; cur = t.parent[cur] {
		if lit, ok := cur.(*ast.FuncLit); ok {
			return lit
		}
	}
	return nil
}

// allInteger reports whether bs, a variable's possible basic types, are
// integer types, and there is one at least.
func allInteger(bs []*types.Basic) bool {
	for _, b := range bs {
		if b.Info()&types.IsInteger == 0 {
			return false
		}
	}
	return len(bs) > 0
}
