package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Index expressions as polynomials, for flowDependences: a[(i-1)*n + j]
// is i·n − n + j, in the loop variable i, variables the loop does not
// assign (n) and the counters of loops inside its body (j). Iteration i
// reads what iteration i+d writes when the written index, with i+d for i,
// is the read index for every value of the other variables.

// A linForm is an index as a sum of monomials with integer coefficients,
// by monomial: its variables' keys, sorted, joined by "*" ("" for the
// constant term, loopKey for the loop variable).
type linForm map[string]int64

// loopKey is the loop variable's key in a monomial.
const loopKey = "#i"

// add returns f + k·g, a new form without zero terms.
func (f linForm) add(g linForm, k int64) linForm {
	out := linForm{}
	for m, c := range f {
		out[m] += c
	}
	for m, c := range g {
		out[m] += k * c
	}
	for m, c := range out {
		if c == 0 {
			delete(out, m)
		}
	}
	return out
}

// mul returns f·g, or false where the loop variable would appear squared.
func (f linForm) mul(g linForm) (linForm, bool) {
	out := linForm{}
	for m1, c1 := range f {
		for m2, c2 := range g {
			m, ok := monomial(m1, m2)
			if !ok {
				return nil, false
			}
			out[m] += c1 * c2
		}
	}
	return out.add(nil, 0), true
}

// monomial returns the product of the monomials a and b, or false where
// the loop variable would appear twice.
func monomial(a, b string) (string, bool) {
	var vs []string
	for _, m := range []string{a, b} {
		if m != "" {
			vs = append(vs, strings.Split(m, "*")...)
		}
	}
	slices.Sort(vs)
	for k := 1; k < len(vs); k++ {
		if vs[k] == loopKey && vs[k-1] == loopKey {
			return "", false
		}
	}
	return strings.Join(vs, "*"), true
}

// withoutLoop returns the monomial m without the loop variable, and
// whether m had it.
func withoutLoop(m string) (string, bool) {
	vs := strings.Split(m, "*")
	k := slices.Index(vs, loopKey)
	if m == "" || k < 0 {
		return m, false
	}
	return strings.Join(slices.Delete(vs, k, k+1), "*"), true
}

// flowDistance returns d such that the index w, written in iteration i+d,
// is the index rd read in iteration i, for every value of the other
// variables; false if there is none, or the written index does not move
// with the loop variable.
func flowDistance(w, rd linForm) (int64, bool) {
	// The terms in i must be the same; then for every monomial s free of
	// i: (w_s − r_s) + d·w_{i·s} = 0.
	rest := map[string]int64{} // s → w_{i·s}
	// Every monomial of either side (w.add(rd, 1) would drop those whose
	// coefficients cancel: -1 and 1).
	monomials := maps.Clone(w)
	maps.Copy(monomials, rd)
	for m := range monomials {
		if s, inLoop := withoutLoop(m); inLoop {
			if w[m] != rd[m] {
				return 0, false
			}
			rest[s] = w[m]
		} else if _, ok := rest[s]; !ok {
			rest[s] = 0
		}
	}
	var d int64
	found := false
	for s, wi := range rest {
		diff := w[s] - rd[s]
		switch {
		case wi == 0 && diff != 0:
			return 0, false
		case wi == 0:
		case diff%wi != 0:
			return 0, false
		case found && -diff/wi != d:
			return 0, false
		default:
			d, found = -diff/wi, true
		}
	}
	return d, found
}

// A formCtx reads index expressions of one region's loop body as forms.
type formCtx struct {
	t        *translator
	r        *region
	assigned map[*types.Var]int      // assignments in the body, by variable (a counter's post among them)
	counters map[*types.Var]ast.Node // counters of loops in the body: their loop

	// In a function the body calls (calleeCtx): its declaration, the
	// variables it assigns, and its parameters bound to the forms of
	// their arguments (indices) or to the arrays they are.
	root    *formCtx                // the loop body's context
	ranges  map[string]counterRange // the counters' ranges, by key, made once (counterRanges) since the last scan
	scanned map[ast.Node]bool       // the bodies scanCounters read (root): each is counted once
	syms    map[string]*types.Var   // the variables of the forms' symbols, by key (root; symbol)
	scope   ast.Node                // *ast.FuncDecl or *ast.FuncLit
	written map[*types.Var]bool
	bind    map[*types.Var]linForm
	arrays  map[*types.Var]arrayRef
	elems   map[*types.Var]arrayRef // pointer parameters (and receivers) to elements: &cs[i-1]
	aliases map[*types.Var]string   // pointer parameters (and receivers) to shared structs: their name

	fieldWrites map[string]bool // the places the loop body assigns, as text (root; fieldWritten)
}

// An arrayRef is a shared array (arrayKey) and an offset in it.
type arrayRef struct {
	key string
	off linForm
}

// calleeCtx returns the context of the function call calls (one of the
// package's functions or methods with a body, or a function literal that
// a variable of the package holds as its only value), its parameters
// bound to what the arguments are in fc, and its body; nil if there is
// none.
func (fc *formCtx) calleeCtx(call *ast.CallExpr) (*formCtx, *ast.BlockStmt) {
	t := fc.t
	if call.Ellipsis.IsValid() {
		return nil, nil
	}
	var scope ast.Node
	var ftype *ast.FuncType
	var body *ast.BlockStmt
	var recv *ast.FieldList
	ct := t // the translator whose information covers the callee
	if fn := t.staticCallee(call); fn != nil {
		d := t.facts.decls[fn]
		if d == nil || d.Body == nil {
			return nil, nil
		}
		scope, ftype, body, recv = d, d.Type, d.Body, d.Recv
	} else if fn, _ := t.externalCallee(call); fn != nil {
		view, d := t.foreignFlowView(fn)
		if d == nil {
			return nil, nil
		}
		ct, scope, ftype, body, recv = view, d, d.Type, d.Body, d.Recv
	} else if lit := fc.literal(call.Fun); lit != nil {
		scope, ftype, body = lit, lit.Type, lit.Body
	} else {
		return nil, nil
	}
	if scope == fc.scope {
		return nil, nil
	}
	sub := &formCtx{t: ct, r: fc.r, root: fc.root, assigned: fc.assigned, counters: fc.counters, scope: scope,
		written: assignedIn(ct, body), bind: map[*types.Var]linForm{}, arrays: map[*types.Var]arrayRef{},
		elems: map[*types.Var]arrayRef{}, aliases: map[*types.Var]string{}}
	sub.scanCounters(body)
	if recv != nil {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || len(recv.List) != 1 || len(recv.List[0].Names) != 1 {
			return nil, nil
		}
		if v, ok := ct.info.Defs[recv.List[0].Names[0]].(*types.Var); ok {
			sub.bindElem(fc, v, sel.X, true)
			sub.bindAlias(fc, v, sel.X, true)
		}
	}
	k := 0
	for _, f := range ftype.Params.List {
		for _, name := range f.Names {
			v, ok := ct.info.Defs[name].(*types.Var)
			if ok && k < len(call.Args) && !sub.written[v] {
				if form, ok := fc.form(call.Args[k], 0); ok {
					sub.bind[v] = form
				}
				if key, off, ok := fc.arrayKey(call.Args[k]); ok {
					sub.arrays[v] = arrayRef{key, off}
				}
				sub.bindElem(fc, v, call.Args[k], false)
				sub.bindAlias(fc, v, call.Args[k], false)
			}
			k++
		}
	}
	return sub, body
}

// literal returns the function literal that fun, a variable of r's
// function defined once (at := func(j int) int { return a[j] }), holds;
// else nil.
func (fc *formCtx) literal(fun ast.Expr) *ast.FuncLit {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v := fc.t.varOf(id)
	if v == nil || fc.assigned[v] != 0 {
		return nil
	}
	src := fc.t.facts.sources[v]
	if len(src) != 1 || src[0].expr == nil {
		return nil
	}
	lit, _ := ast.Unparen(src[0].expr).(*ast.FuncLit)
	return lit
}

// bindAlias binds v, a pointer parameter (or receiver), to the shared
// struct its argument e (in fc) points to (g in g.step(i), with g :=
// &Grid{...}), so that the fields v selects are that struct's; a struct
// receiver (recv) taken by value too: its slices are the caller's.
func (sub *formCtx) bindAlias(fc *formCtx, v *types.Var, e ast.Expr, recv bool) {
	copied := recv && isStruct(v.Type())
	if sub.written[v] || !fc.t.isPointer(e) && !isAddr(e) && !copied {
		return
	}
	if pre := fc.aliasPrefix(e); pre != "" {
		sub.aliases[v] = pre
	}
}

// isAddr reports whether e takes an address (&x).
func isAddr(e ast.Expr) bool {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.AND
}

// aliasPrefix returns the text that names, in r's loop body, the struct
// that e (in fc) is or points to: a shared variable's name, or its alias
// in a called function; "" if there is none.
func (fc *formCtx) aliasPrefix(e ast.Expr) string {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return ""
	}
	v := fc.t.varOf(id)
	if v == nil {
		return ""
	}
	if pre, ok := fc.aliases[v]; ok {
		return pre
	}
	if fc.scope != nil && (within(v.Pos(), fc.scope) || fc.written[v]) || !fc.t.sharedRoot(fc.r, v) {
		return ""
	}
	return id.Name
}

// bindElem binds v, a pointer parameter (or a receiver: recv), to the
// element of a shared array that its argument e (in fc) points to: &a[k],
// or a[k] for a pointer receiver.
func (sub *formCtx) bindElem(fc *formCtx, v *types.Var, e ast.Expr, recv bool) {
	if sub.written[v] {
		return
	}
	if _, ptr := v.Type().Underlying().(*types.Pointer); !ptr {
		return // a copy
	}
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	} else if !recv {
		return
	}
	ix, ok := e.(*ast.IndexExpr)
	if !ok {
		return
	}
	if key, off, ok := fc.arrayKey(ix.X); ok {
		if f, ok := fc.form(ix.Index, 0); ok {
			sub.elems[v] = arrayRef{key, f.add(off, 1)}
		}
	}
}

// assignedIn returns the variables body assigns (not defines) or takes
// the address of.
func assignedIn(t *translator, body ast.Node) map[*types.Var]bool {
	written := map[*types.Var]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch x := n.(type) {
		case *ast.AssignStmt:
			lhs = x.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{x.X}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				lhs = []ast.Expr{x.X}
			}
		}
		for _, e := range lhs {
			if id, ok := ast.Unparen(e).(*ast.Ident); ok && t.info.Defs[id] == nil {
				if v := t.varOf(id); v != nil {
					written[v] = true
				}
			}
		}
		return true
	})
	return written
}

// formsOf returns the context that reads r's loop body's indices as forms,
// made once a region.
func (t *translator) formsOf(r *region) *formCtx {
	if r.forms == nil {
		fc := &formCtx{t: t, r: r, assigned: map[*types.Var]int{}, counters: map[*types.Var]ast.Node{}}
		fc.root = fc
		fc.scanCounters(r.body)
		r.forms = fc
	}
	return r.forms
}

// scanCounters counts the assignments of the variables body assigns and
// records the counters of its loops, in the maps fc shares with its root
// (a called function's loops are the region's too, for the places its
// body reads).
func (fc *formCtx) scanCounters(body ast.Node) {
	t, root := fc.t, fc.root
	if root.scanned == nil {
		root.scanned = map[ast.Node]bool{}
	}
	if root.scanned[body] {
		return // a function called twice: its assignments counted once
	}
	root.scanned[body] = true
	root.ranges = nil // made again with this body's counters
	count := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok && t.info.Defs[id] == nil {
			if v := t.varOf(id); v != nil {
				fc.assigned[v]++
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				count(l)
			}
		case *ast.IncDecStmt:
			count(x.X)
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				count(x.X)
				count(x.X) // its address taken: never a counter
			}
		case *ast.RangeStmt:
			if id, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE {
				if v := t.varOf(id); v != nil {
					fc.counters[v] = x
				}
			}
		case *ast.ForStmt:
			if a, ok := x.Init.(*ast.AssignStmt); ok && a.Tok == token.DEFINE && len(a.Lhs) == 1 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok {
					if v := t.varOf(id); v != nil {
						fc.counters[v] = x
					}
				}
			}
		}
		return true
	})
}

// form returns e as a form, or false.
func (fc *formCtx) form(e ast.Expr, depth int) (linForm, bool) {
	t := fc.t
	if depth > 8 {
		return nil, false
	}
	e = ast.Unparen(e)
	if tv, found := t.info.Types[e]; found && tv.Value != nil {
		k, exact := constant.Int64Val(constant.ToInt(tv.Value))
		return linForm{"": k}.add(nil, 0), exact
	}
	switch x := e.(type) {
	case *ast.Ident:
		return fc.varForm(x, depth)
	case *ast.SelectorExpr:
		return fc.fieldForm(x)
	case *ast.UnaryExpr:
		f, ok := fc.form(x.X, depth+1)
		switch x.Op {
		case token.SUB:
			return linForm{}.add(f, -1), ok
		case token.ADD:
			return f, ok
		}
	case *ast.CallExpr:
		if tv, ok := t.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return fc.form(x.Args[0], depth+1) // a conversion
		}
		if sub, body := fc.calleeCtx(x); sub != nil && len(body.List) == 1 {
			// A function returning one expression of its parameters:
			// idx(i-1, j) for (i-1)*n + j.
			if ret, ok := body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
				return sub.form(ret.Results[0], depth+1)
			}
		}
		if b, ok := t.info.Uses[calleeIdent(x)].(*types.Builtin); ok && b.Name() == "len" && len(x.Args) == 1 {
			if id, ok := ast.Unparen(x.Args[0]).(*ast.Ident); ok {
				if v := t.varOf(id); v != nil && !within(v.Pos(), fc.r.body) && v != fc.r.loop.v && fc.assigned[v] == 0 {
					return linForm{"len:" + symbolKey(v): 1}, true // the length of a slice the loop does not assign
				}
			}
		}
	case *ast.BinaryExpr:
		f, ok1 := fc.form(x.X, depth+1)
		g, ok2 := fc.form(x.Y, depth+1)
		if !ok1 || !ok2 {
			return nil, false
		}
		switch x.Op {
		case token.ADD:
			return f.add(g, 1), true
		case token.SUB:
			return f.add(g, -1), true
		case token.MUL:
			return f.mul(g)
		case token.SHL:
			if k, ok := g[""]; ok && len(g) == 1 && k >= 0 && k < 31 {
				return linForm{}.add(f, 1<<k), true
			}
		}
	}
	return nil, false
}

// fieldForm returns the form of an integer field of a shared struct that
// the loop does not change (m.C in m.Data[i*m.C+j], also inside m's
// methods), as a symbol named by the field's path from the struct's
// variable, so that the loop body and the functions it calls name it
// alike.
func (fc *formCtx) fieldForm(sel *ast.SelectorExpr) (linForm, bool) {
	t := fc.t
	if b, ok := t.info.TypeOf(sel).Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 || !selectorChain(sel) {
		return nil, false
	}
	if s := t.info.Selections[sel]; s == nil || s.Kind() != types.FieldVal {
		return nil, false
	}
	root := t.rootVar(sel)
	if root == nil {
		return nil, false
	}
	var path string
	switch {
	case fc.scope != nil && fc.aliases[root] != "":
		path = fc.aliases[root] + strings.TrimPrefix(t.text(sel), root.Name())
	case fc.scope != nil:
		return nil, false
	case t.sharedRoot(fc.r, root) && fc.assigned[root] == 0:
		path = t.text(sel)
	default:
		return nil, false
	}
	if fc.root.fieldWritten(path) {
		return nil, false
	}
	return linForm{"field:" + path: 1}, true
}

// fieldWritten reports whether the loop body assigns the field path (as
// fieldForm names it), or a struct holding it, directly.
func (fc *formCtx) fieldWritten(path string) bool {
	root := fc.root
	if root == nil {
		root = fc
	}
	if root.fieldWrites == nil {
		root.fieldWrites = map[string]bool{}
		ast.Inspect(fc.r.body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				for _, l := range x.Lhs {
					root.fieldWrites[fc.t.text(l)] = true
				}
			case *ast.IncDecStmt:
				root.fieldWrites[fc.t.text(x.X)] = true
			}
			return true
		})
	}
	for p := path; ; {
		if root.fieldWrites[p] {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// varForm returns the form of the variable id: the loop variable, a
// variable the loop does not assign, a loop counter of the body, or a
// local of the body defined once (through its definition).
func (fc *formCtx) varForm(id *ast.Ident, depth int) (linForm, bool) {
	t, r := fc.t, fc.r
	v := t.varOf(id)
	if fc.scope != nil && v != nil {
		if f, ok := fc.bind[v]; ok {
			return f, true
		}
		if loop, ok := fc.counters[v]; ok && within(loop.Pos(), fc.scope) {
			if _, ok := fc.counter(loop, v, depth); ok {
				return fc.symbol(v), true // a counter of the function's loops
			}
			return nil, false
		}
		if within(v.Pos(), fc.scope) || fc.written[v] {
			return nil, false // a local of the function, or a variable it assigns
		}
	}
	switch {
	case v == nil:
		return nil, false
	case v == r.loop.v:
		return linForm{loopKey: 1}, true
	case v == r.loop.valueVar:
		return nil, false
	case !within(v.Pos(), r.body) && fc.assigned[v] == 0:
		return fc.symbol(v), true
	}
	if loop, ok := fc.counters[v]; ok {
		if _, ok := fc.counter(loop, v, depth); ok {
			return fc.symbol(v), true
		}
		return nil, false
	}
	if def := t.onlyDefinition(r, v); def != nil {
		return fc.form(def, depth+1)
	}
	if def, adj, ok := fc.stepped(v, id); ok {
		f, ok := fc.form(def, depth+1)
		if !ok {
			return nil, false
		}
		return f.add(linForm{"": adj}, 1), true
	}
	return nil, false
}

// stepped returns, for the local v of the loop body defined (j := e) in a
// statement list and changed after only by constant steps that are
// statements of the same list (j--, j += 2), e and the sum of the steps
// before the use id, which must lie in that list after the definition.
func (fc *formCtx) stepped(v *types.Var, id *ast.Ident) (ast.Expr, int64, bool) {
	t, r := fc.t, fc.r
	if !within(v.Pos(), r.body) || fc.scope != nil {
		return nil, 0, false
	}
	var def ast.Expr
	var block *ast.BlockStmt
	var steps []ast.Stmt
	ok := true
	for _, u := range t.facts.uses[v] {
		if !t.writesVar(u) {
			continue
		}
		if st, isStep := t.parent[u].(*ast.IncDecStmt); isStep {
			steps = append(steps, st)
			continue
		}
		as, isAssign := t.parent[u].(*ast.AssignStmt)
		if !isAssign || as.Tok != token.ADD_ASSIGN && as.Tok != token.SUB_ASSIGN || len(as.Lhs) != 1 {
			ok = false
			break
		}
		steps = append(steps, as)
	}
	// The definition: j := e, the only other assignment.
	ast.Inspect(r.body, func(n ast.Node) bool {
		if as, isAssign := n.(*ast.AssignStmt); isAssign && as.Tok == token.DEFINE && len(as.Lhs) == len(as.Rhs) {
			for k, l := range as.Lhs {
				if lid, isId := l.(*ast.Ident); isId && t.info.Defs[lid] == v {
					def = as.Rhs[k]
					block, _ = t.parent[as].(*ast.BlockStmt)
				}
			}
		}
		return def == nil
	})
	if !ok || def == nil || block == nil || len(steps) == 0 || !within(id.Pos(), block) {
		return nil, 0, false
	}
	var adj int64
	for _, st := range steps {
		if t.parent[st] != ast.Node(block) {
			return nil, 0, false // a step under a condition, or in another block
		}
		if st.Pos() > id.Pos() {
			continue
		}
		switch x := st.(type) {
		case *ast.IncDecStmt:
			if x.Tok == token.INC {
				adj++
			} else {
				adj--
			}
		case *ast.AssignStmt:
			tv, isConst := t.info.Types[x.Rhs[0]]
			if !isConst || tv.Value == nil {
				return nil, 0, false
			}
			c, exact := constant.Int64Val(constant.ToInt(tv.Value))
			if !exact {
				return nil, 0, false
			}
			if x.Tok == token.SUB_ASSIGN {
				c = -c
			}
			adj += c
		}
	}
	return def, adj, true
}

// symbol returns the form of the variable v as a symbol, and records
// which variable its key names (symbolVar).
func (fc *formCtx) symbol(v *types.Var) linForm {
	key := symbolKey(v)
	if fc.root.syms == nil {
		fc.root.syms = map[string]*types.Var{}
	}
	fc.root.syms[key] = v
	return linForm{key: 1}
}

// A counterRange is what the translator knows of the values a loop
// counter of the body takes: lo, lo+step, ..., count of them in every
// iteration of the parallel loop where its bounds differ by a constant
// (else count is -1: unknown; 0 for a range over a slice or an array,
// whose first value only is sampled).
type counterRange struct {
	lo    linForm
	step  int64
	count int64
	last  linForm // the last value it takes, where known (else nil)
}

// counter returns the range of v, the counter of loop (a for or range
// statement of the body), where only loop's post statement assigns it and
// its start and step are forms of constants and variables the parallel
// loop does not assign (for j := 1; j < n-1; j++; for j := 0; j < i; j++;
// for j := range n). A red-black sweep's j := 1 + (i+color)%2 has none.
func (fc *formCtx) counter(loop ast.Node, v *types.Var, depth int) (counterRange, bool) {
	invariant := func(e ast.Expr) (linForm, bool) {
		f, ok := fc.form(e, depth+1)
		if !ok {
			return nil, false
		}
		for m := range f {
			for _, key := range strings.Split(m, "*") {
				// The parallel loop's variable may move the range with
				// it (for k := b*bs + 1; k < b*bs+bs; k++): a sample is
				// then a form of it, which the distances take.
				if key != "" && key != loopKey && !fc.invariantKey(key) {
					return nil, false
				}
			}
		}
		return f, true
	}
	switch l := loop.(type) {
	case *ast.ForStmt:
		init := l.Init.(*ast.AssignStmt)
		cond, ok := l.Cond.(*ast.BinaryExpr)
		if fc.assigned[v] != 1 || l.Post == nil || !fc.onlyPost(l, v) || len(init.Rhs) != 1 || !ok {
			return counterRange{}, false
		}
		lo, ok := invariant(init.Rhs[0])
		step := fc.postStep(l.Post)
		if !ok || step == 0 {
			return counterRange{}, false
		}
		bound, op := cond.Y, cond.Op
		if id, ok := ast.Unparen(cond.Y).(*ast.Ident); ok && fc.t.varOf(id) == v {
			bound = cond.X
			op = map[token.Token]token.Token{token.LSS: token.GTR, token.LEQ: token.GEQ, token.GTR: token.LSS, token.GEQ: token.LEQ}[op]
		}
		cr := counterRange{lo: lo, step: step, count: -1}
		if hi, ok := invariant(bound); ok {
			cr.last = lastValue(hi, op, step)
			span := hi.add(lo, -1)
			if c, constant := span[""]; len(span) == 0 || len(span) == 1 && constant {
				switch {
				case (op == token.LSS || op == token.LEQ) && step > 0 && c >= 0:
					cr.count = (c + step - 1) / step
					if op == token.LEQ && c%step == 0 {
						cr.count++
					}
				case (op == token.GTR || op == token.GEQ) && step < 0 && c <= 0:
					cr.count = (-c - step - 1) / -step
					if op == token.GEQ && c%step == 0 {
						cr.count++
					}
				}
				if cr.count > 0 {
					cr.last = lo.add(linForm{"": (cr.count - 1) * step}, 1)
				}
			}
		}
		return cr, true
	case *ast.RangeStmt:
		if fc.assigned[v] != 0 {
			return counterRange{}, false
		}
		// Over a slice or an array: its length is not known here, and is
		// typically the iteration's own share (row := a[i*m:(i+1)*m]):
		// only the first value is sampled (count 0).
		cr := counterRange{lo: linForm{}, step: 1}
		if tv, ok := fc.t.info.Types[l.X]; ok && tv.Value != nil {
			if c, exact := constant.Int64Val(constant.ToInt(tv.Value)); exact && c > 0 {
				cr.count = c
			}
		}
		return cr, true
	}
	return counterRange{}, false
}

// lastValue returns the last value a counter of step ±1 takes below (or
// above) the bound hi under op, or nil: of other steps it depends on
// where the counter starts.
func lastValue(hi linForm, op token.Token, step int64) linForm {
	switch {
	case step == 1 && op == token.LSS, step == -1 && op == token.GTR:
		return hi.add(linForm{"": -step}, 1)
	case step == 1 && op == token.LEQ, step == -1 && op == token.GEQ:
		return hi
	}
	return nil
}

// counterRanges returns the ranges of the body's counters that have one,
// by their keys, computed once for the loop.
func (fc *formCtx) counterRanges() map[string]counterRange {
	if fc.ranges == nil {
		fc.ranges = map[string]counterRange{}
		for v, loop := range fc.counters {
			if cr, ok := fc.counter(loop, v, 0); ok {
				fc.ranges[symbolKey(v)] = cr
			}
		}
	}
	return fc.ranges
}

// postStep returns the constant a for loop's post statement adds to its
// counter (j++, j -= 2), or 0.
func (fc *formCtx) postStep(post ast.Stmt) int64 {
	switch p := post.(type) {
	case *ast.IncDecStmt:
		if p.Tok == token.INC {
			return 1
		}
		return -1
	case *ast.AssignStmt:
		if len(p.Rhs) != 1 || p.Tok != token.ADD_ASSIGN && p.Tok != token.SUB_ASSIGN {
			return 0
		}
		tv, ok := fc.t.info.Types[p.Rhs[0]]
		if !ok || tv.Value == nil {
			return 0
		}
		k, exact := constant.Int64Val(constant.ToInt(tv.Value))
		if !exact {
			return 0
		}
		if p.Tok == token.SUB_ASSIGN {
			k = -k
		}
		return k
	}
	return 0
}

// invariantKey reports whether key is a monomial variable's key of a
// variable declared outside the loop body that the body does not assign.
func (fc *formCtx) invariantKey(key string) bool {
	if key == loopKey {
		return false
	}
	for v := range fc.counters {
		if symbolKey(v) == key {
			return false
		}
	}
	return true
}

// onlyPost reports whether the loop f's post statement assigns v.
func (fc *formCtx) onlyPost(f *ast.ForStmt, v *types.Var) bool {
	var lhs ast.Expr
	switch p := f.Post.(type) {
	case *ast.IncDecStmt:
		lhs = p.X
	case *ast.AssignStmt:
		if len(p.Lhs) == 1 {
			lhs = p.Lhs[0]
		}
	}
	id, ok := ast.Unparen(lhs).(*ast.Ident)
	return ok && fc.t.varOf(id) == v
}

// symbolKey is v's key in a monomial.
func symbolKey(v *types.Var) string {
	return v.Name() + "@" + strconv.Itoa(int(v.Pos()))
}

// sameCounters reports whether every loop counter in the forms w and rd
// is the counter of a loop holding both places: then it takes the same
// values in both, and an index equal for all its values is one element.
func (fc *formCtx) sameCounters(w, rd linForm, wAt, rdAt ast.Node) bool {
	for _, f := range []linForm{w, rd} {
		for m := range f {
			for _, key := range strings.Split(m, "*") {
				for v, loop := range fc.counters {
					if symbolKey(v) == key && (!within(wAt.Pos(), loop) || !within(rdAt.Pos(), loop)) {
						return false
					}
				}
			}
		}
	}
	return true
}

// formText writes f as Go would (off, -n + 2, 2*m*k), its variables by
// name.
func (t *translator) formText(f linForm) string {
	ms := slices.Sorted(maps.Keys(f))
	var b strings.Builder
	for _, m := range ms {
		if m == "" {
			continue // the constant last
		}
		c := f[m]
		switch {
		case b.Len() > 0 && c < 0:
			b.WriteString(" - ")
			c = -c
		case b.Len() > 0:
			b.WriteString(" + ")
		case c < 0:
			b.WriteString("-")
			c = -c
		}
		if c != 1 {
			b.WriteString(strconv.FormatInt(c, 10) + "*")
		}
		var names []string
		for _, key := range strings.Split(m, "*") {
			name, _, _ := strings.Cut(strings.TrimPrefix(key, "field:"), "@")
			names = append(names, name)
		}
		b.WriteString(strings.Join(names, "*"))
	}
	if c := f[""]; c != 0 {
		if c < 0 {
			b.WriteString(" - " + strconv.FormatInt(-c, 10))
		} else {
			b.WriteString(" + " + strconv.FormatInt(c, 10))
		}
	}
	return b.String()
}

// runsOnce reports whether loop, whose counter has the range cr, runs at
// least once: for k := lo; k < hi; k++ with hi − lo a positive constant
// once the locals assigned once in it are replaced by their values (m :=
// 50).
func (fc *formCtx) runsOnce(loop *ast.ForStmt, cr counterRange) bool {
	cond, ok := ast.Unparen(loop.Cond).(*ast.BinaryExpr)
	if !ok || cond.Op != token.LSS || cr.step != 1 {
		return false
	}
	hi, ok := fc.form(cond.Y, 0)
	if !ok {
		return false
	}
	span := fc.expandLocals(hi.add(cr.lo, -1), 3)
	c, constant := span[""]
	return len(span) == 1 && constant && c >= 1
}

// foreignFlowView returns, for fn of another package whose source the
// translator reads, a view of the translator whose type information,
// parents and declarations are that package's, so that the flow analysis
// can read fn's body as it reads the package's own functions (the
// accessors of a matrix type: m.Set(i, j, m.At(i-1, j))), and fn's
// declaration; nil, nil if there is none. The view knows no sources of
// that package's variables: its locals are not followed.
func (t *translator) foreignFlowView(fn *types.Func) (*translator, *ast.FuncDecl) {
	if t.foreign == nil || fn.Pkg() == nil {
		return nil, nil
	}
	fp := t.foreign.load(fn.Pkg().Path())
	if fp == nil {
		return nil, nil
	}
	d := fp.decls[fn.Origin().FullName()]
	if d == nil || d.Body == nil {
		return nil, nil
	}
	if t.flowViews == nil {
		t.flowViews = map[string]*translator{}
	}
	view := t.flowViews[fn.Pkg().Path()]
	if view == nil {
		view = &translator{p: t.p, fset: t.fset, info: fp.info, parent: fp.parents, fileOf: t.fileOf,
			assigned: map[ast.Node]map[*types.Var]bool{}, facts: newFacts(), foreign: t.foreign, flowViews: t.flowViews}
		t.flowViews[fn.Pkg().Path()] = view
	}
	return view, d
}
