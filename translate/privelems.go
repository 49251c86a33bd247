package translate

import (
	"fmt"
	"go/ast"
	gconst "go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Private arrays assigned element by element, and private slices reset
// to their own array. go run's one array keeps, from one iteration to
// the next, the elements an iteration does not assign; a node's copy
// keeps those of the node's previous iteration (or zero). An iteration
// that reads an element it has not assigned before (tmp[i%4] = i; s :=
// tmp[0] + tmp[1]) therefore reads another value, and so does one that
// reslices a slice reset by buf = buf[:0] past its length (buf[:cap(buf)]
// reaches what an earlier iteration appended). Both are refused. An
// element counts as assigned where a statement before the read, in the
// read's block or one around it, assigns it or a place holding it (tmp[k]
// = e, tmp = ..., copy(tmp[:], src) from a src at least as long
// (copyFills), &tmp handed to a function that assigns it, or an if and
// its else that both do),
// the same constant index, or the same index expression of variables the
// iteration does not change; an array whose every element is so assigned
// is assigned whole. Elements written in an inner loop before the read
// (a buffer filled by a loop) or in a function literal are not followed,
// and taken as assigning the array; a read in a function literal counts
// as made where the literal is.

// elemKey is the place of an array variable a use reaches: one component
// per index or field, "#c" for a constant index c, "=e@..." for an index
// expression e that the iteration does not change, "." + name for a field;
// "" for an index that matches nothing.
type elemKey []string

// elementCarry returns, for an array v of r's loop body whose first use
// there does not read it, the first read of an element (or of the whole
// array) that the iteration may not have assigned before, and the first
// element write; nil if there is none. For a firstprivate v, a read of an
// element that no write of the body may reach is not one: every copy
// holds its value from before the region.
func (t *translator) elementCarry(r *region, v *types.Var, firstprivate bool) (read, write *ast.Ident) {
	if _, ok := v.Type().Underlying().(*types.Array); !ok || r.dir.kind != dirFor {
		return nil, nil
	}
	var uses []*ast.Ident
	var writes []elemKey
	for _, u := range t.facts.uses[v] {
		if within(u.Pos(), r.body) && !t.lengthOnly(u) {
			uses = append(uses, u)
			if t.writesVar(u) {
				key, _ := t.elemPlace(r, u)
				writes = append(writes, key)
			}
		}
	}
	slices.SortFunc(uses, func(a, b *ast.Ident) int { return int(a.Pos()) - int(b.Pos()) })
	for _, u := range uses {
		key, plain := t.elemPlace(r, u)
		if lit := t.enclosingLit(u); plain && lit != nil && within(lit.Pos(), r.body) {
			return nil, nil // a function literal's write: not followed
		}
		if plain {
			if write == nil {
				write = u
			}
			if t.inInnerLoop(r, u) {
				return nil, nil // filled by a loop
			}
			continue
		}
		if t.outParam(u) {
			return nil, nil // assigned whole by the function
		}
		if t.coveredBefore(r, v, u, key) {
			continue
		}
		if firstprivate && !slices.ContainsFunc(writes, func(w elemKey) bool { return mayAlias(w, key) }) {
			continue
		}
		return u, write
	}
	return nil, nil
}

// elemPlace returns the place of v that the use u reaches (v, v[k],
// v[k].f, ...), and whether the use assigns that place without reading
// it: the left side of a plain assignment, or copy's destination v[:].
func (t *translator) elemPlace(r *region, u *ast.Ident) (key elemKey, plain bool) {
	var cur ast.Node = u
loop:
	for {
		switch p := t.parent[cur].(type) {
		case *ast.ParenExpr:
		case *ast.IndexExpr:
			if p.X != cur {
				break loop
			}
			key = append(key, t.indexKey(r, p.Index))
		case *ast.SelectorExpr:
			s := t.info.Selections[p]
			if p.X != cur || s == nil || s.Kind() != types.FieldVal || s.Indirect() {
				break loop
			}
			key = append(key, "."+p.Sel.Name)
		default:
			break loop
		}
		cur = t.parent[cur]
	}
	if se, ok := t.parent[cur].(*ast.SliceExpr); ok && se.X == cur && se.Low == nil && se.High == nil && t.copyDest(u) {
		if !t.copyFills(t.parent[se].(*ast.CallExpr)) {
			return append(key, ""), true // a source that may be shorter: some part
		}
		return key, true
	}
	if as, ok := t.parent[cur].(*ast.AssignStmt); ok && as.Tok == token.ASSIGN && slices.Contains(as.Lhs, cur.(ast.Expr)) {
		return key, true
	}
	return key, false
}

// copyFills reports whether call, copy(v[:], src) with v an array, copies
// every element of v: src's length is known, and at least v's (a[:] or
// a[lo:] of an array, s[lo:hi] with constant bounds, a slice literal, a
// constant string).
func (t *translator) copyFills(call *ast.CallExpr) bool {
	n, ok := t.knownLen(call.Args[0])
	m, ok2 := t.knownLen(call.Args[1])
	return ok && ok2 && m >= n
}

// knownLen returns the length of the slice (or string) e where the types
// and constants tell it.
func (t *translator) knownLen(e ast.Expr) (int64, bool) {
	num := func(e ast.Expr, dflt int64) (int64, bool) {
		if e == nil {
			return dflt, dflt >= 0
		}
		tv, ok := t.info.Types[e]
		if !ok || tv.Value == nil {
			return 0, false
		}
		return gconst.Int64Val(gconst.ToInt(tv.Value))
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.SliceExpr:
		arrLen := int64(-1) // the length of x.X when it is an array (or points to one)
		typ := t.info.TypeOf(x.X).Underlying()
		if p, ok := typ.(*types.Pointer); ok {
			typ = p.Elem().Underlying()
		}
		if a, ok := typ.(*types.Array); ok {
			arrLen = a.Len()
		}
		lo, ok := num(x.Low, 0)
		hi, ok2 := num(x.High, arrLen)
		if (!ok || !ok2) && x.Low != nil && x.High != nil {
			d, ok := t.linearDiff(x.High, x.Low) // a[4*i : 4*i+4]
			return d, ok && d >= 0
		}
		return hi - lo, ok && ok2 && hi >= lo
	case *ast.CompositeLit:
		for _, el := range x.Elts {
			if _, keyed := el.(*ast.KeyValueExpr); keyed {
				return 0, false
			}
		}
		return int64(len(x.Elts)), true
	}
	if tv, ok := t.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == gconst.String {
		return int64(len(gconst.StringVal(tv.Value))), true
	}
	return 0, false
}

// indexKey returns the key component of the index e (elemKey).
func (t *translator) indexKey(r *region, e ast.Expr) string {
	if tv, ok := t.info.Types[e]; ok && tv.Value != nil {
		return "#" + tv.Value.ExactString()
	}
	if !t.pureExpr(e) {
		return ""
	}
	var b strings.Builder
	b.WriteString("=" + types.ExprString(e))
	steady := true
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return steady
		}
		x, _ := t.info.Uses[id].(*types.Var)
		if x == nil {
			return true
		}
		fmt.Fprintf(&b, "@%d", x.Pos()) // one name, two variables
		for _, w := range t.facts.uses[x] {
			if within(w.Pos(), r.body) && t.writesVar(w) {
				steady = false // the iteration changes it
			}
		}
		return steady
	})
	if !steady {
		return ""
	}
	return b.String()
}

// inInnerLoop reports whether u lies in a loop of r's body.
func (t *translator) inInnerLoop(r *region, u ast.Node) bool {
	for cur := t.parent[u]; cur != nil && cur != ast.Node(r.body); cur = t.parent[cur] {
		switch cur.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return true
		}
	}
	return false
}

// coveredBefore reports whether the statements that run before the use u
// in every iteration (those before it in its block and the blocks around
// it, up to r's body) assign the place key of v, or a place holding it.
func (t *translator) coveredBefore(r *region, v *types.Var, u *ast.Ident, key elemKey) bool {
	var before []ast.Stmt
	var cur ast.Node = u
	for cur != ast.Node(r.body) {
		if s, ok := cur.(ast.Stmt); ok {
			list := t.stmtList(s)
			if k := slices.Index(list, s); k >= 0 {
				before = append(before, list[:k]...)
			}
		}
		cur = t.parent[cur]
	}
	for j := 0; j <= len(key); j++ {
		if t.placeAssigned(r, v, before, key[:j], 0) {
			return true
		}
	}
	return false
}

// placeAssigned reports whether one of stmts assigns the place key of v
// or one holding it, or whether they assign each of its elements (each
// field of a struct, each index of an array of at most 64) by constant
// indices.
func (t *translator) placeAssigned(r *region, v *types.Var, stmts []ast.Stmt, key elemKey, depth int) bool {
	var consts []elemKey // the writes' keys that go on with a constant
	for _, s := range stmts {
		for _, w := range t.stmtAssigns(r, v, s) {
			if len(w) <= len(key) && slices.Equal(w, key[:len(w)]) && !slices.Contains(w, "") {
				return true
			}
			if len(w) > len(key) && slices.Equal(w[:len(key)], key) && !strings.HasPrefix(w[len(key)], "=") {
				consts = append(consts, w)
			}
		}
	}
	if len(consts) == 0 || depth > 4 {
		return false
	}
	var parts []string
	switch typ := placeType(v.Type(), key).Underlying().(type) {
	case *types.Array:
		if typ.Len() > 64 {
			return false
		}
		for c := int64(0); c < typ.Len(); c++ {
			parts = append(parts, fmt.Sprintf("#%d", c))
		}
	case *types.Struct:
		for f := range typ.Fields() {
			parts = append(parts, "."+f.Name())
		}
	default:
		return false
	}
	for _, part := range parts {
		if !t.placeAssigned(r, v, stmts, append(slices.Clip(key), part), depth+1) {
			return false
		}
	}
	return true
}

// placeType returns the type of the place key of a variable of type typ.
func placeType(typ types.Type, key elemKey) types.Type {
	for _, k := range key {
		switch u := typ.Underlying().(type) {
		case *types.Array:
			typ = u.Elem()
		case *types.Struct:
			for f := range u.Fields() {
				if "."+f.Name() == k {
					typ = f.Type()
				}
			}
		}
	}
	return typ
}

// endsBranch reports whether the block s (an if's branch) ends in a
// statement after which it never goes on: continue, break, return or a
// call of panic.
func (t *translator) endsBranch(s ast.Stmt) bool {
	b, ok := s.(*ast.BlockStmt)
	if !ok || len(b.List) == 0 {
		return false
	}
	switch last := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return last.Tok == token.CONTINUE || last.Tok == token.BREAK
	case *ast.ExprStmt:
		call, ok := last.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
		return ok && b.Name() == "panic"
	}
	return false
}

// stmtAssigns returns the places of v that the statement s assigns
// whenever it runs and goes on past it: a plain assignment's left sides,
// copy's destination v[:], the whole of v for &v handed to a function that
// assigns it (outParam), those of a block's statements, those that an if
// and its else both assign, or one of them where the other ends the
// branch (endsBranch), and those every clause of a switch with a default
// assigns (switchAssigns).
func (t *translator) stmtAssigns(r *region, v *types.Var, s ast.Stmt) []elemKey {
	var out []elemKey
	var targets []ast.Expr // a plain assignment's left sides, or copy's destination
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok != token.ASSIGN {
			return nil
		}
		targets = s.Lhs
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return nil
		}
		if len(call.Args) == 2 {
			targets = call.Args[:1]
		}
		for _, a := range call.Args {
			if amp, ok := a.(*ast.UnaryExpr); ok && amp.Op == token.AND {
				if id, ok := amp.X.(*ast.Ident); ok && t.info.Uses[id] == v && t.outParam(id) {
					out = append(out, elemKey{}) // &v handed to a function that assigns it whole
				}
			}
		}
	case *ast.BlockStmt:
		for _, x := range s.List {
			out = append(out, t.stmtAssigns(r, v, x)...)
		}
	case *ast.LabeledStmt:
		return t.stmtAssigns(r, v, s.Stmt)
	case *ast.RangeStmt:
		if t.fillsWhole(v, s) {
			out = append(out, elemKey{})
		}
	case *ast.SwitchStmt:
		return t.switchAssigns(r, v, s.Init, s.Body)
	case *ast.TypeSwitchStmt:
		return t.switchAssigns(r, v, s.Init, s.Body)
	case *ast.IfStmt:
		if s.Else == nil {
			return nil
		}
		other := t.stmtAssigns(r, v, s.Else)
		// A branch that never goes on past the if (it ends in continue,
		// break, return or a panic) leaves the other's assignments.
		switch {
		case t.endsBranch(s.Body):
			return other
		case t.endsBranch(s.Else):
			return t.stmtAssigns(r, v, s.Body)
		}
		for _, k := range t.stmtAssigns(r, v, s.Body) {
			if slices.ContainsFunc(other, func(o elemKey) bool { return slices.Equal(o, k) }) {
				out = append(out, k)
			}
		}
	}
	for _, e := range targets {
		if id := rootIdent(e); id != nil && t.info.Uses[id] == v {
			if key, plain := t.elemPlace(r, id); plain {
				out = append(out, key)
			}
		}
	}
	return out
}

// switchAssigns returns the places of v that a switch (expression or
// type switch, its init statement init and its clauses body) assigns
// whenever it goes on past it: those of init and those every clause
// assigns, where the switch has a default clause. A clause that ends in
// continue, return or a call of panic never goes on past the switch and
// is left out; one that may leave it early (a break out of the switch, a
// labelled branch) or falls through assigns nothing for certain, which
// makes the switch assign nothing.
func (t *translator) switchAssigns(r *region, v *types.Var, init ast.Stmt, body *ast.BlockStmt) []elemKey {
	var out []elemKey
	if init != nil {
		out = t.stmtAssigns(r, v, init)
	}
	var common []elemKey
	first, hasDefault := true, false
	for _, c := range body.List {
		cc := c.(*ast.CaseClause)
		hasDefault = hasDefault || cc.List == nil
		list := cc.Body
		if n := len(list); n > 0 && isBreak(list[n-1]) {
			list = list[:n-1] // break at the end: the clause's end
		}
		got, exits, ok := t.clauseAssigns(r, v, list)
		if !ok {
			return out
		}
		if !exits && t.endsBranch(&ast.BlockStmt{List: list}) {
			continue // ends the iteration: never goes on past the switch
		}
		if first {
			common, first = got, false
			continue
		}
		common = slices.DeleteFunc(common, func(k elemKey) bool {
			return !slices.ContainsFunc(got, func(o elemKey) bool { return slices.Equal(o, k) })
		})
	}
	if !hasDefault {
		return out
	}
	return append(out, common...)
}

// clauseAssigns returns the places of v that the statements list of a
// switch clause assign on every path out of the switch: past their end,
// and by a break of the switch ending an if's branch without an else (if
// c { t = -i; break }), which leaves with what was assigned before and in
// that branch; exits reports whether there was such a break. ok is false
// where the clause may leave otherwise (leavesSwitch).
func (t *translator) clauseAssigns(r *region, v *types.Var, list []ast.Stmt) (keys []elemKey, exits, ok bool) {
	var acc []elemKey
	var outs [][]elemKey // what each break's path assigned
	for _, s := range list {
		if ifs, isIf := s.(*ast.IfStmt); isIf && ifs.Else == nil && len(ifs.Body.List) > 0 && isBreak(ifs.Body.List[len(ifs.Body.List)-1]) {
			branch := ifs.Body.List[:len(ifs.Body.List)-1]
			if leavesSwitch(branch) {
				return nil, false, false
			}
			outs = append(outs, append(slices.Clone(acc), t.stmtAssigns(r, v, &ast.BlockStmt{List: branch})...))
			continue
		}
		if leavesSwitch([]ast.Stmt{s}) {
			return nil, false, false
		}
		acc = append(acc, t.stmtAssigns(r, v, s)...)
	}
	for _, o := range outs {
		acc = slices.DeleteFunc(acc, func(k elemKey) bool {
			return !slices.ContainsFunc(o, func(x elemKey) bool { return slices.Equal(x, k) })
		})
	}
	return acc, len(outs) > 0, true
}

// isBreak reports whether s is a break without a label.
func isBreak(s ast.Stmt) bool {
	b, ok := s.(*ast.BranchStmt)
	return ok && b.Tok == token.BREAK && b.Label == nil
}

// leavesSwitch reports whether the statements of a switch clause hold a
// branch that leaves the clause other than by its end or by ending the
// iteration: a break of the switch (not of a loop, switch or select
// inside the clause), a labelled branch or goto, or a fallthrough.
func leavesSwitch(list []ast.Stmt) bool {
	found := false
	var visit func(n ast.Node, nested bool) bool
	visit = func(n ast.Node, nested bool) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			ast.Inspect(n, func(m ast.Node) bool {
				return m == n || visit(m, true)
			})
			return false
		case *ast.BranchStmt:
			switch {
			case n.Label != nil || n.Tok == token.GOTO || n.Tok == token.FALLTHROUGH:
				found = true
			case n.Tok == token.BREAK && !nested:
				found = true
			}
		}
		return true
	}
	for _, s := range list {
		ast.Inspect(s, func(n ast.Node) bool { return visit(n, false) })
	}
	return found
}

// fillsWhole reports whether s is a fill loop of the array v (or of the
// array v points to), which assigns every element: for k := range v {
// v[k] = e; … }, its first statement assigning v[k] (k the loop's own
// key, not assigned nor taken the address of in the loop), with no
// break, goto, return or labelled branch in it that could end the fill
// early.
func (t *translator) fillsWhole(v *types.Var, s *ast.RangeStmt) bool {
	x, ok := ast.Unparen(s.X).(*ast.Ident)
	k, kok := s.Key.(*ast.Ident)
	if !ok || !kok || s.Tok != token.DEFINE || t.info.Uses[x] != v || len(s.Body.List) == 0 {
		return false
	}
	typ := v.Type().Underlying()
	if ptr, ok := typ.(*types.Pointer); ok {
		typ = ptr.Elem().Underlying() // for k := range p { p[k] = … } with p *[N]T
	}
	if _, isArray := typ.(*types.Array); !isArray {
		return false
	}
	a, ok := s.Body.List[0].(*ast.AssignStmt)
	if !ok || a.Tok != token.ASSIGN || len(a.Lhs) != 1 {
		return false
	}
	ix, ok := ast.Unparen(a.Lhs[0]).(*ast.IndexExpr)
	if !ok {
		return false
	}
	base, bok := ast.Unparen(ix.X).(*ast.Ident)
	key, kok := ast.Unparen(ix.Index).(*ast.Ident)
	if !bok || !kok || t.info.Uses[base] != v || t.info.Uses[key] != t.info.Defs[k] {
		return false
	}
	reassigned := false
	ast.Inspect(s.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && t.info.Uses[id] == t.info.Defs[k] {
					reassigned = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && t.info.Uses[id] == t.info.Defs[k] {
				reassigned = true
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND && t.info.Uses[id] == t.info.Defs[k] {
				reassigned = true
			}
		case *ast.BranchStmt:
			// A break, goto or labelled branch may end the fill early
			// (a plain continue only skips the rest of one element).
			reassigned = reassigned || n.Tok != token.CONTINUE || n.Label != nil
		case *ast.ReturnStmt:
			reassigned = true
		}
		return !reassigned
	})
	return !reassigned
}

// rootIdent returns the identifier at the root of e (x of x[k].f, x[:]),
// or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// mayAlias reports whether the places a and b of one array may overlap:
// no component of theirs tells them apart (two different constants, two
// different fields).
func mayAlias(a, b elemKey) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] && a[k] != "" && b[k] != "" && a[k][0] == b[k][0] && a[k][0] != '=' {
			return false
		}
	}
	return true
}

// elemText returns the source text of the place of its array that the use
// u reaches (tmp[0], tmp[k].x), for messages.
func (t *translator) elemText(u *ast.Ident) string {
	var cur ast.Node = u
	for {
		switch p := t.parent[cur].(type) {
		case *ast.IndexExpr:
			if p.X != cur {
				return t.text(cur)
			}
		case *ast.SelectorExpr:
			if p.X != cur {
				return t.text(cur)
			}
		case *ast.ParenExpr:
		default:
			return t.text(cur)
		}
		cur = t.parent[cur]
	}
}

// resetReslice returns, for a slice v of r's loop body that a whole
// assignment there resets to its own array (v = v[:0], v = append(v[:0],
// ...)), a slice expression of v that may reach past its length, and the
// reset; nil if there is none. Its high bound must be 0, len(v) or len(v)
// minus a constant to be within.
func (t *translator) resetReslice(r *region, v *types.Var) (reslice *ast.SliceExpr, reset *ast.Ident) {
	if _, ok := v.Type().Underlying().(*types.Slice); !ok || r.dir.kind != dirFor {
		return nil, nil
	}
	for _, u := range t.facts.uses[v] {
		se, ok := t.parent[u].(*ast.SliceExpr)
		if !ok || se.X != ast.Expr(u) || !within(u.Pos(), r.body) {
			continue
		}
		if emptySlice(t, se) {
			if reset == nil {
				reset = u
			}
			continue
		}
		if se.High != nil && !t.withinLen(se.High, v) && (reslice == nil || se.Pos() < reslice.Pos()) {
			reslice = se
		}
	}
	if reset == nil || reslice == nil {
		return nil, nil
	}
	return reslice, reset
}

// withinLen reports whether e is 0, len(v) or len(v) - c for a constant
// c of at least 0.
func (t *translator) withinLen(e ast.Expr, v *types.Var) bool {
	e = ast.Unparen(e)
	if tv, ok := t.info.Types[e]; ok && tv.Value != nil {
		return tv.Value.ExactString() == "0"
	}
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.SUB {
		tv, ok := t.info.Types[b.Y]
		if !ok || tv.Value == nil || strings.HasPrefix(tv.Value.ExactString(), "-") {
			return false
		}
		e = ast.Unparen(b.X)
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || t.varOf(call.Args[0]) != v {
		return false
	}
	bi, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
	return ok && bi.Name() == "len"
}

// partialLast returns, for a lastprivate array or struct v of r's loop
// body, a write of a part of v (best[j%2] = x; also a method with a
// pointer receiver, v[:] handed to a function, copy from a source that
// may be shorter: mayWrite, copyFills) in a loop whose iterations may not
// all assign the whole of v, or nil. The node of the last iteration hands
// its copy over, whose other parts hold what that node's previous
// iterations left, or zero, where go run's one variable holds what the
// previous iterations assigned. Every iteration assigns v whole where the
// first statements of the body assign it (assignsWholeFirst,
// placeAssigned: v = e, copy(v[:], src) from a src at least as long,
// every element by constant indices, an if and its else that both do,
// &v handed to a function that assigns it whole: outParam) and none of
// them may leave the iteration before. An assignment under an if does
// not count: the iterations that skip it hand over another iteration's
// parts.
func (t *translator) partialLast(r *region, v *types.Var) *ast.Ident {
	if r.clauseOf[v] != "lastprivate" || !isAggregate(v.Type()) || r.dir.kind != dirFor {
		return nil
	}
	if t.assignsWholeFirst(r, v, r.body.List) {
		return nil // every iteration assigns it whole
	}
	for _, u := range t.writesIn(v, r.body) {
		if key, plain := t.elemPlace(r, u); (!plain || len(key) > 0) && !t.outParam(u) {
			return u
		}
	}
	return nil
}

// assignsWholeFirst reports whether the first statements of list assign
// the whole of v (placeAssigned) and none of them may leave the list
// before.
func (t *translator) assignsWholeFirst(r *region, v *types.Var, list []ast.Stmt) bool {
	for m := range len(list) + 1 {
		if t.placeAssigned(r, v, list[:m], nil, 0) {
			return !leavesEarly(list[:m])
		}
	}
	return false
}

// writesIn returns the uses of v in body that may write it (mayWrite), in
// source order.
func (t *translator) writesIn(v *types.Var, body ast.Node) []*ast.Ident {
	var uses []*ast.Ident
	for _, u := range t.facts.uses[v] {
		if within(u.Pos(), body) && t.mayWrite(u) {
			uses = append(uses, u)
		}
	}
	slices.SortFunc(uses, func(a, b *ast.Ident) int { return int(a.Pos()) - int(b.Pos()) })
	return uses
}

// leavesEarly reports whether one of stmts may leave their list before
// its end: a return, a goto, a labeled break or continue, or a break or
// continue outside a loop, switch or select of theirs.
func leavesEarly(stmts []ast.Stmt) bool {
	early := false
	var walk func(n ast.Node, inner bool)
	walk = func(n ast.Node, inner bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				early = true
			case *ast.BranchStmt:
				if s.Tok == token.GOTO || s.Label != nil || !inner && s.Tok != token.FALLTHROUGH {
					early = true
				}
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if !inner {
					for _, c := range childStmts(s) {
						walk(c, true)
					}
					return false
				}
			}
			return !early
		})
	}
	for _, s := range stmts {
		walk(s, false)
	}
	return early
}

// childStmts returns the parts of a loop, switch or select statement.
func childStmts(s ast.Node) []ast.Node {
	var out []ast.Node
	ast.Inspect(s, func(n ast.Node) bool {
		if n == s {
			return true
		}
		if n != nil {
			out = append(out, n)
		}
		return false
	})
	return out
}
