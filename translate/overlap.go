package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// Writes of one loop body to one array that two iterations may share
// (rule 4's overlaps): each write's index is read as coef·v + off, v the
// loop variable and off a value of [lo, hi) within one iteration (a
// constant, an inner loop's counter, a copy's length). Two iterations m
// apart (m ≠ 0) reach one element when m·coef·step lies strictly between
// lo₁-hi₂ and hi₁-lo₂: a[i*4+4] with a[i*4+j] (j < 4), a[i*m.C+j] with
// j <= m.C, copy(a[i*4:], src) with len(src) 5. Two writes whose
// coefficients differ (a[n-1-i] with a[i]) cross, and a coefficient not
// known to be non-zero (a[i*z], z := zero()) may make every iteration
// write one element: the merge must compare the nodes' values there
// (cape.Mark). Sizes that cannot be compared (a bound in another
// variable than the stride) are taken to be the iteration's own, as a
// stencil's are.

// lin is a·S + c: an integer in at most one symbol S (sym, the text of an
// expression the same in every iteration that the translator cannot
// evaluate: a parameter, a field m.C, a function's result), or the
// constant c (sym "").
type lin struct {
	sym  string
	a, c int64
}

// linLimit bounds the numbers lin keeps, so that no operation overflows.
const linLimit = 1 << 31

func (x lin) ok() bool {
	return x.a > -linLimit && x.a < linLimit && x.c > -linLimit && x.c < linLimit
}

// plus returns x + y, false if they are in two symbols.
func (x lin) plus(y lin) (lin, bool) {
	switch {
	case x.a == 0:
		x.sym = y.sym
	case y.a != 0 && x.sym != y.sym:
		return lin{}, false
	}
	s := lin{x.sym, x.a + y.a, x.c + y.c}
	if s.a == 0 {
		s.sym = ""
	}
	return s, s.ok()
}

// minus returns x - y, false if they are in two symbols.
func (x lin) minus(y lin) (lin, bool) { return x.plus(y.scale(-1)) }

// scale returns k·x.
func (x lin) scale(k int64) lin {
	s := lin{x.sym, x.a * k, x.c * k}
	if s.a == 0 {
		s.sym = ""
	}
	return s
}

// times returns x·y, false unless one of them is a constant.
func (x lin) times(y lin) (lin, bool) {
	if x.a == 0 {
		x, y = y, x
	}
	if y.a != 0 || y.c <= -linLimit || y.c >= linLimit {
		return lin{}, false
	}
	s := x.scale(y.c)
	return s, s.ok()
}

// positive reports whether x > 0 for every value S ≥ 1 of its symbol.
func (x lin) positive() bool {
	return x.a >= 0 && x.a+x.c > 0
}

// nonZero reports whether x is a constant other than 0.
func (x lin) nonZero() bool { return x.a == 0 && x.c != 0 }

// An indexForm reads an index as coef·v + off, v the loop variable and
// off one of [lo, hi) in one iteration; window: off takes several of them
// in one iteration (an inner loop's counter), not one (a[i^8]); scaled:
// the loop variable's one term is multiplied by a symbol (i*z), which
// may be 0.
type indexForm struct {
	coef, lo, hi lin
	window       bool
	scaled       bool
}

// pointForm is the form of a value the same in every iteration.
func pointForm(x lin) indexForm {
	hi, _ := x.plus(lin{c: 1})
	return indexForm{lo: x, hi: hi}
}

// single reports whether f is one value, the same in every iteration.
func (f indexForm) single() bool {
	d, ok := f.hi.minus(f.lo)
	return f.coef == (lin{}) && ok && d == lin{c: 1}
}

// linOf reads e, an integer the same in every iteration of r's loop, as a
// lin: constants and variables with one value (w := s + 1) are followed,
// anything else is a symbol.
func (t *translator) linOf(r *region, e ast.Expr, depth int) lin {
	e = ast.Unparen(e)
	if constIntOK(t.info, e) {
		if x := (lin{c: constInt(t.info, e)}); x.ok() {
			return x
		}
	}
	atom := lin{sym: t.text(e), a: 1}
	if depth > 6 {
		return atom
	}
	switch x := e.(type) {
	case *ast.Ident:
		if v := t.varOf(x); v != nil && within(v.Pos(), r.body) {
			if def := t.onlyDefinition(r, v); def != nil {
				return t.linOf(r, def, depth+1)
			}
		} else if src := t.oneValue(x); src != nil && !within(src.Pos(), r.body) {
			return t.linOf(r, src, depth+1)
		}
	case *ast.BinaryExpr:
		a, b := t.linOf(r, x.X, depth+1), t.linOf(r, x.Y, depth+1)
		var s lin
		ok := false
		switch x.Op {
		case token.ADD:
			s, ok = a.plus(b)
		case token.SUB:
			s, ok = a.minus(b)
		case token.MUL:
			s, ok = a.times(b)
		}
		if ok {
			return s
		}
	}
	return atom
}

// oneValue returns the expression that sets the variable id names, if
// that is its only value and its address is never taken (w := 5 assigned
// nowhere else); else nil.
func (t *translator) oneValue(id *ast.Ident) ast.Expr {
	v := t.varOf(id)
	if v == nil {
		return nil
	}
	srcs := t.facts.sources[v]
	if len(srcs) != 1 || srcs[0].expr == nil {
		return nil
	}
	for _, u := range t.facts.uses[v] {
		if x, ok := t.parent[u].(*ast.UnaryExpr); ok && x.Op == token.AND {
			return nil
		}
	}
	return srcs[0].expr
}

// indexFormOf reads the index e of r's loop body (or, env not nil, the
// expression a function the index calls returns, with its parameters
// standing for the arguments of the call) as an indexForm; false where it
// is not one: a product of two symbols, a call that is not a one-line
// index helper, memory read.
func (t *translator) indexFormOf(r *region, e ast.Expr, env map[*types.Var]ast.Expr, depth int) (indexForm, bool) {
	e = ast.Unparen(e)
	if depth > 8 {
		return indexForm{}, false
	}
	if constIntOK(t.info, e) || env == nil && t.invariantIndex(r, e) {
		return pointForm(t.linOf(r, e, 0)), true // (a helper's constant: return i*W + j)
	}
	switch x := e.(type) {
	case *ast.Ident:
		return t.identForm(r, x, env, depth)
	case *ast.CallExpr:
		if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 && t.widening(x.Args[0], tv.Type) {
			return t.indexFormOf(r, x.Args[0], env, depth+1)
		}
		if env == nil {
			return t.helperForm(r, x, depth)
		}
	case *ast.UnaryExpr:
		if x.Op == token.SUB {
			return t.indexFormOf(r, &ast.BinaryExpr{X: &ast.BasicLit{Kind: token.INT, Value: "0"}, Op: token.SUB, Y: x.X}, env, depth+1)
		}
	case *ast.BinaryExpr:
		return t.binaryForm(r, x, env, depth)
	case *ast.SelectorExpr:
		// A field of a parameter (the receiver's g.n): the same field of
		// the argument, if that is the same in every iteration.
		if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && env != nil {
			if arg, ok := env[t.varOf(id)]; ok && t.invariantIndex(r, arg) && isInteger(t.info.TypeOf(x)) {
				return pointForm(lin{sym: t.text(arg) + "." + x.Sel.Name, a: 1}), true
			}
		}
	}
	return indexForm{}, false
}

// identForm is indexFormOf of a variable: the loop variable, a parameter
// of the helper read, an inner loop's counter (a window), a local defined
// once.
func (t *translator) identForm(r *region, x *ast.Ident, env map[*types.Var]ast.Expr, depth int) (indexForm, bool) {
	v := t.varOf(x)
	switch {
	case v == nil:
		return indexForm{}, false
	case v == r.loop.v:
		return indexForm{coef: lin{c: 1}, hi: lin{c: 1}}, true
	case env != nil:
		if arg, ok := env[v]; ok {
			return t.indexFormOf(r, arg, nil, depth+1)
		}
		return indexForm{}, false
	}
	if lo, hi, ok := t.counterSpan(r, v); ok {
		return indexForm{lo: lo, hi: hi, window: true}, true
	}
	if def := t.onlyDefinition(r, v); def != nil {
		return t.indexFormOf(r, def, nil, depth+1)
	}
	return indexForm{}, false
}

// counterSpan returns the values [lo, hi) that v, the counter of a loop
// of r's body, takes: for v := lo; v < hi; v++ (or v <= hi-1), or for v :=
// range hi, lo and hi the same in every iteration, v assigned nowhere
// else in the body.
func (t *translator) counterSpan(r *region, v *types.Var) (lo, hi lin, ok bool) {
	switch x := t.counterLoop(r, v).(type) {
	case *ast.ForStmt:
		start := x.Init.(*ast.AssignStmt).Rhs[0]
		b, isBin := x.Cond.(*ast.BinaryExpr)
		inc, isInc := x.Post.(*ast.IncDecStmt)
		if !isBin || !isInc || inc.Tok != token.INC || t.boundOf(b, v) != b.Y || t.changes(r, v) != 1 ||
			!t.invariantIndex(r, start) || !t.invariantIndex(r, b.Y) {
			return lin{}, lin{}, false
		}
		lo, hi = t.linOf(r, start, 0), t.linOf(r, b.Y, 0)
		switch b.Op {
		case token.LSS:
			return lo, hi, true
		case token.LEQ:
			hi, ok = hi.plus(lin{c: 1})
			return lo, hi, ok
		}
	case *ast.RangeStmt:
		if t.changes(r, v) == 0 && t.invariantIndex(r, x.X) && isInteger(t.info.TypeOf(x.X)) {
			return lin{}, t.linOf(r, x.X, 0), true
		}
	}
	return lin{}, lin{}, false
}

// helperForm is indexFormOf of a call of a one-line index helper, a
// function or method of the package or a local function value set once
// (at := func(i, j int) int { return i*4 + j }), read as the expression it
// returns.
func (t *translator) helperForm(r *region, call *ast.CallExpr, depth int) (indexForm, bool) {
	var ft *ast.FuncType
	var body *ast.BlockStmt
	env := map[*types.Var]ast.Expr{}
	if fn := t.staticCallee(call); fn != nil {
		if d := t.facts.decls[fn.Origin()]; d != nil {
			ft, body = d.Type, d.Body
			if d.Recv != nil && len(d.Recv.List) == 1 && len(d.Recv.List[0].Names) == 1 {
				v, _ := t.info.Defs[d.Recv.List[0].Names[0]].(*types.Var)
				if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && v != nil {
					env[v] = sel.X // (g.at(i, j) returning i*g.n + j)
				}
			}
		}
	} else if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if lit, ok := ast.Unparen(t.oneValue(id)).(*ast.FuncLit); ok && t.oneValue(id) != nil {
			ft, body = lit.Type, lit.Body
		}
	}
	if body == nil || len(body.List) != 1 || call.Ellipsis.IsValid() {
		return indexForm{}, false
	}
	ret, ok := body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return indexForm{}, false
	}
	k := 0
	for _, f := range ft.Params.List {
		for _, name := range f.Names {
			if v, ok := t.info.Defs[name].(*types.Var); ok && k < len(call.Args) {
				env[v] = call.Args[k]
			}
			k++
		}
	}
	return t.indexFormOf(r, ret.Results[0], env, depth+1)
}

// binaryForm is indexFormOf of a sum, a difference, a product or a shift
// of forms, or a form xor or or a constant c (a[i^8]: within c of i).
func (t *translator) binaryForm(r *region, x *ast.BinaryExpr, env map[*types.Var]ast.Expr, depth int) (indexForm, bool) {
	if (x.Op == token.XOR || x.Op == token.OR) && constIntOK(t.info, x.Y) {
		f, ok := t.indexFormOf(r, x.X, env, depth+1)
		c := constInt(t.info, x.Y)
		if !ok || f.window || c < 0 || c >= linLimit {
			return indexForm{}, false
		}
		hi, ok1 := f.hi.plus(lin{c: c})
		lo, ok2 := f.lo, true
		if x.Op == token.XOR {
			lo, ok2 = f.lo.minus(lin{c: c})
		}
		return indexForm{coef: f.coef, lo: lo, hi: hi, scaled: f.scaled}, ok1 && ok2
	}
	a, ok1 := t.indexFormOf(r, x.X, env, depth+1)
	if !ok1 {
		return indexForm{}, false
	}
	if x.Op == token.SHL {
		if !smallShift(t.info, x.Y) {
			return indexForm{}, false
		}
		return scaleForm(a, lin{c: 1 << constInt(t.info, x.Y)})
	}
	b, ok2 := t.indexFormOf(r, x.Y, env, depth+1)
	if !ok2 {
		return indexForm{}, false
	}
	switch x.Op {
	case token.ADD:
		return sumForm(a, b)
	case token.SUB:
		lo, ok1 := b.hi.minus(lin{c: 1})
		neg := indexForm{coef: b.coef.scale(-1), lo: lo.scale(-1), hi: b.lo.scale(-1).plusOne(), window: b.window, scaled: b.scaled}
		f, ok2 := sumForm(a, neg)
		return f, ok1 && ok2
	case token.MUL:
		if b.single() {
			return scaleForm(a, b.lo)
		}
		if a.single() {
			return scaleForm(b, a.lo)
		}
	}
	return indexForm{}, false
}

// plusOne returns x + 1.
func (x lin) plusOne() lin {
	x.c++
	return x
}

// sumForm returns the form of the sum of two forms.
func sumForm(a, b indexForm) (indexForm, bool) {
	coef, ok1 := a.coef.plus(b.coef)
	lo, ok2 := a.lo.plus(b.lo)
	hi, ok3 := a.hi.plus(b.hi)
	hi.c-- // [lo₁, hi₁) + [lo₂, hi₂) = [lo₁+lo₂, hi₁+hi₂-1)
	scaled := a.scaled && b.coef == (lin{}) || b.scaled && a.coef == (lin{})
	return indexForm{coef: coef, lo: lo, hi: hi, window: a.window || b.window, scaled: scaled}, ok1 && ok2 && ok3
}

// scaleForm returns the form of f times k, one value the same in every
// iteration; a window (or an off not one value) times a symbol is none.
func scaleForm(f indexForm, k lin) (indexForm, bool) {
	coef, ok := f.coef.times(k)
	if !ok {
		return indexForm{}, false
	}
	if k.a != 0 {
		if f.lo.a != 0 || f.hi != f.lo.plusOne() {
			return indexForm{}, false
		}
		lo, ok := f.lo.times(k)
		return indexForm{coef: coef, lo: lo, hi: lo.plusOne(), window: f.window, scaled: f.coef != (lin{})}, ok
	}
	// [lo, hi)·k covers k·lo … k·(hi-1), in that order or the reverse.
	first, _ := f.lo.times(k)
	last, _ := f.hi.scale(k.c).minus(k)
	if k.c < 0 {
		first, last = last, first
	}
	return indexForm{coef: coef, lo: first, hi: last.plusOne(), window: f.window, scaled: f.scaled}, first.ok() && last.ok()
}

// A formedWrite is a write of r's loop body to an element (or, copy, to a
// window from an element on) of a shared array, with its index's form.
type formedWrite struct {
	st    ast.Stmt
	place ast.Expr // a[k], or the destination a[k:] of a copy
	key   string   // the array's text
	index string   // the index's text
	form  indexForm
	at    *ast.IndexExpr // place, whose index calls a function (cape.MarkAt)
	copy  *ast.CallExpr  // the copy writing place's window
}

// formWrite returns the formedWrite of the write of l by st (or of the
// copy call), false if l is not an element of a shared array that a mark
// can name or its index has no form.
func (t *translator) formWrite(r *region, st ast.Stmt, l ast.Expr, call *ast.CallExpr) (formedWrite, bool) {
	var x, index ast.Expr
	var at *ast.IndexExpr
	switch p := ast.Unparen(l).(type) {
	case *ast.IndexExpr:
		if call != nil {
			return formedWrite{}, false // copy(rows[i], …) writes the row rows[i] holds
		}
		x, index = p.X, p.Index
		if !t.markPure(l) {
			if !t.markPure(p.X) || !t.indexable(p.X) {
				return formedWrite{}, false
			}
			at = p
		}
	case *ast.SliceExpr:
		if p.Low == nil || !t.markPure(l) || call == nil || !t.markPure(call.Args[1]) {
			return formedWrite{}, false
		}
		x, index = p.X, p.Low
	default:
		return formedWrite{}, false
	}
	for _, ix := range indicesOf(x) {
		if !t.invariantIndex(r, ix) {
			return formedWrite{}, false // rows[y][x]: y tells the rows apart
		}
	}
	root := t.rootVar(x)
	if root == nil || !t.sharedRoot(r, root) || r.shared[root] || root == r.loop.valueVar || t.derefs(r, l) {
		return formedWrite{}, false
	}
	f, ok := t.indexFormOf(r, index, nil, 0)
	if !ok {
		return formedWrite{}, false
	}
	if call != nil {
		if f, ok = t.copyForm(r, f, l.(*ast.SliceExpr), call.Args[1]); !ok {
			return formedWrite{}, false
		}
	}
	return formedWrite{st: st, place: l, key: t.text(x), index: t.text(index), form: f, at: at, copy: call}, true
}

// copyForm widens f, the form of the low bound of dst, the destination
// of a copy from src, to the elements the copy writes: up to dst's high
// bound, or len(src) of them; false if neither is known.
func (t *translator) copyForm(r *region, f indexForm, dst *ast.SliceExpr, src ast.Expr) (indexForm, bool) {
	if dst.High != nil {
		h, ok := t.indexFormOf(r, dst.High, nil, 0)
		if !ok || h.coef != f.coef {
			return indexForm{}, false
		}
		f.hi, ok = h.hi.minus(lin{c: 1})
		f.window = true
		return f, ok
	}
	n, ok := t.lenOf(r, src)
	if !ok {
		return indexForm{}, false
	}
	width, ok1 := n.minus(lin{c: 1})
	hi, ok2 := f.hi.plus(width)
	f.hi, f.window = hi, true
	return f, ok1 && ok2
}

// lenOf returns the length of src, a copy's source the same in every
// iteration: a string constant, a composite literal without keys, a
// make's length, or a variable set once to one of them.
func (t *translator) lenOf(r *region, src ast.Expr) (lin, bool) {
	src = ast.Unparen(src)
	if id, ok := src.(*ast.Ident); ok {
		if v := t.oneValue(id); v != nil && !within(v.Pos(), r.body) {
			src = ast.Unparen(v)
		}
	}
	switch x := src.(type) {
	case *ast.CompositeLit:
		for _, e := range x.Elts {
			if _, keyed := e.(*ast.KeyValueExpr); keyed {
				return lin{}, false
			}
		}
		return lin{c: int64(len(x.Elts))}, true
	case *ast.CallExpr:
		if b, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); ok && b.Name() == "make" && len(x.Args) >= 2 && t.invariantIndex(r, x.Args[1]) {
			return t.linOf(r, x.Args[1], 0), true
		}
	}
	if tv, ok := t.info.Types[src]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return lin{c: int64(len(constant.StringVal(tv.Value)))}, true
	}
	return lin{}, false
}

// overlaps returns the writes of ws that two iterations may make to one
// element (see the head of this file): a window wider than the place
// moves from one iteration to the next, two windows of one array that
// reach each other across iterations, two writes whose places move
// differently, a place whose move may be 0.
func (t *translator) overlaps(r *region, ws []formedWrite) (out, zeroOnly map[ast.Expr]bool) {
	out, zeroOnly = map[ast.Expr]bool{}, map[ast.Expr]bool{}
	defer func() {
		for p := range zeroOnly {
			if !out[p] {
				delete(zeroOnly, p)
			}
		}
	}()
	step := int64(1)
	if r.loop.step != nil {
		s, ok := t.constValue(r.loop.step)
		if !ok || s == 0 {
			return out, zeroOnly
		}
		step = max(s, -s)
	}
	other := map[ast.Expr]bool{} // marked for another reason than mayZero
	for i, w := range ws {
		if mayZero(w.form) {
			out[w.place], zeroOnly[w.place] = true, true
		}
		if w.form.window && crosses(w.form.coef.scale(step), w.form, w.form) {
			out[w.place], other[w.place] = true, true
		}
		for _, u := range ws[i+1:] {
			if u.key != w.key || u.index == w.index && u.copy == nil && w.copy == nil {
				continue
			}
			if u.form.coef != w.form.coef || crosses(w.form.coef.scale(step), w.form, u.form) {
				out[w.place], out[u.place] = true, true
				other[w.place], other[u.place] = true, true
			}
		}
	}
	for p := range other {
		delete(zeroOnly, p)
	}
	return out, zeroOnly
}

// zeroGuard returns, for fw marked only because its place may stay put
// (mayZero: the loop variable times a symbol that may be 0), the symbol's
// expression where it stands in the place's index (img.Stride in
// img.Pix[y*img.Stride+x]), so that the mark is made only when it is 0;
// nil where it does not stand there.
func (t *translator) zeroGuard(fw formedWrite) ast.Expr {
	ix, ok := ast.Unparen(fw.place).(*ast.IndexExpr)
	sym := fw.form.coef.sym
	if !ok || sym == "" || fw.copy != nil || fw.at != nil {
		return nil
	}
	var found ast.Expr
	ast.Inspect(ix.Index, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && found == nil && t.text(e) == sym && t.markPure(e) && isInteger(t.info.TypeOf(e)) {
			found = e
		}
		return found == nil
	})
	return found
}

// mayZero reports whether f's place may stay where it is from one
// iteration to the next (a coefficient 0, or the loop variable times a
// symbol not known not to be 0) while writing something there: every
// iteration writes one element.
func mayZero(f indexForm) bool {
	if f.coef.nonZero() || f.coef.a != 0 && !f.scaled {
		return false
	}
	width, ok := f.hi.minus(f.lo)
	return ok && width.c > 0 // its width where the symbol is 0
}

// crosses reports whether iterations m·k apart (m ≠ 0) reach one element
// of the windows a and b: m·k lies strictly between a.lo-b.hi and
// a.hi-b.lo. A symbol is taken to be at least 1; a relation that cannot
// be decided is not a crossing.
func crosses(k lin, a, b indexForm) bool {
	lo, ok1 := a.lo.minus(b.hi)
	hi, ok2 := a.hi.minus(b.lo)
	if !ok1 || !ok2 || k == (lin{}) {
		return false
	}
	if k.a == 0 && lo.a == 0 && hi.a == 0 {
		kk := max(k.c, -k.c)
		up := floorDiv(lo.c, kk) + 1 // the least multiple above lo
		if up == 0 {
			up = 1
		}
		down := -floorDiv(-hi.c, kk) - 1 // the greatest below hi
		if down == 0 {
			down = -1
		}
		return up*kk < hi.c || down*kk > lo.c
	}
	for _, m := range []int64{1, -1} {
		mk := k.scale(m)
		d1, ok1 := mk.minus(lo)
		d2, ok2 := hi.minus(mk)
		if ok1 && ok2 && d1.positive() && d2.positive() {
			return true
		}
	}
	return false
}

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
