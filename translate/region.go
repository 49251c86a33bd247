package translate

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
)

// A region is one parallel construct: a //cape:parallel for loop or a
// //cape:parallel sections block.
type region struct {
	dir      *directive
	file     *ast.File
	stmt     ast.Stmt         // *ast.ForStmt, *ast.RangeStmt or *ast.BlockStmt
	label    *ast.LabeledStmt // the label of the loop, or nil
	fn       ast.Node         // innermost enclosing *ast.FuncDecl or *ast.FuncLit
	body     *ast.BlockStmt   // the loop body, or the sections block
	sections []*ast.BlockStmt // the section blocks

	clauseOf map[*types.Var]string // private, firstprivate, lastprivate or reduction
	redOp    map[*types.Var]string // reduction operator
	order    []*types.Var          // clause variables in clause order
	shared   map[*types.Var]bool
	refused  map[*types.Var]bool // named by a clause that was refused: not analyzed again
	sched    string              // cape constant: Static, Dynamic or Guided
	chunk    string              // chunk expression; "" when absent
	chunkPos token.Pos

	loop  *loopInfo
	outer *region // the region r is nested in, or nil
	// updates: the loop updates shared elements at indices not proved
	// distinct per iteration (sharedUpdate): the runtime is told
	// (Region.Updates), and its merge makes two nodes' writes of one
	// byte a conflict.
	updates bool
	// marks: the writes of the loop body to shared places not proved
	// each iteration's own (markWrites), which the runtime compares
	// between nodes (cape.Mark).
	marks []markedWrite
	// calleeMarks: the writes of functions the loop body calls to one
	// place in every iteration, reached through their arguments or
	// captured (buf[0] through set0(buf, v)): marked where they stand
	// (cape.MarkCallee), for the same comparison.
	calleeMarks []markedWrite
	// condLast: the lastprivate variables that not every iteration
	// assigns, each by a plain assignment statement (condAssignable):
	// the node of the latest iteration that assigned one hands it over
	// (cape.LastAssigned).
	condLast map[*types.Var]bool
	// firstLast: the lastprivate variables also listed firstprivate,
	// whose copies start from their values.
	firstLast map[*types.Var]bool
	// forms reads the loop body's indices as forms (formsOf), made
	// once for the private copies' checks and the dependences.
	forms *formCtx
}

// A markedWrite is a statement of a loop body writing place. At, when
// set, is place's index, which calls a function: the mark wraps it
// (cape.MarkAt) instead of computing the place again.
type markedWrite struct {
	stmt  ast.Stmt
	place ast.Expr
	at    *ast.IndexExpr
	// suffix and whole: place is an argument of a call of another
	// package's function, which writes the place suffix leads to from
	// it (".Last", "[0]"), or, whole, all that it points to
	// (foreignMarks).
	suffix string
	whole  bool
	// zero, when not nil, is the multiplier of the loop variable in
	// place's index, which may be 0: the mark is made only when it is
	// (img.Stride in img.Pix[y*img.Stride+x]).
	zero ast.Expr
	// n, when set, is the source of a copy into place, a slice: the
	// mark covers as many of its elements as n has (cape.MarkN).
	n ast.Expr
}

// loopInfo describes the header of a parallel for loop.
type loopInfo struct {
	v      *types.Var // iteration variable, nil when absent or blank
	name   string     // its name
	typ    types.Type // its type
	define bool       // declared by the loop header (:=)

	// Three-clause loops: for v := lo; v op hi; v += step.
	lo, hi, step ast.Expr // step nil means 1
	op           token.Token
	down         bool      // decrementing
	cond         ast.Expr  // the condition as written
	at           token.Pos // the for keyword
	check        bool      // go run may not end it at its bound: cape.LoopCount checks (forEnds)

	// Range loops: for v := range x / for v, val := range x.
	rangeX   ast.Expr
	rangeInt bool // x is an integer
	value    *ast.Ident
	valueVar *types.Var
}

// findRegions finds the directives of every file, attaches each to the
// statement that follows it, makes and sets up a region for each parallel
// construct, and returns them with the checkpoint points.
func (t *translator) findRegions() directives {
	d := directives{regionAt: map[ast.Stmt]*region{}}
	sectionDirs := map[ast.Stmt]*directive{}
	for _, f := range t.p.files {
		dirs := t.fileDirectives(f)
		if len(dirs) == 0 {
			continue
		}
		order := t.attachDirectives(f, dirs)
		for _, dir := range dirs {
			if !dir.used {
				t.errorf(dir.pos, "%s must be on the line before the statement it applies to", dir.text)
			}
		}
		for _, a := range order {
			if a.dir.kind == dirCheckpoint {
				d.points = append(d.points, &point{dir: a.dir, stmt: a.stmt})
				continue
			}
			t.newRegion(&d, f, a.stmt, a.dir, sectionDirs)
		}
	}
	for _, r := range d.regions {
		t.setupRegion(&d, r, sectionDirs)
	}
	t.checkPoints(&d)
	for s, dir := range sectionDirs {
		if !dir.used {
			continue
		}
		if blk, ok := t.parent[s].(*ast.BlockStmt); ok && d.regionAt[blk] != nil && d.regionAt[blk].dir.kind == dirSections {
			continue
		}
		t.errorf(dir.pos, "//cape:section outside a //cape:parallel sections block")
	}
	return d
}

// fileDirectives parses the directives in f's comments, reporting those
// that are malformed.
func (t *translator) fileDirectives(f *ast.File) []*directive {
	var dirs []*directive
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			d, err := parseDirective(c)
			if err != nil {
				pos := c.Slash
				if ce, ok := err.(*clauseError); ok {
					pos = ce.pos
				}
				t.errorf(pos, "%v", err)
				continue
			}
			if d != nil {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// attachDirectives attaches each of f's directives to the statement that
// follows it in its statement list, marking it used, and returns them in
// the order found. A statement takes one checkpoint point and one other
// directive (a point right above a parallel loop is the loop's first
// statement's); a second of either is reported.
func (t *translator) attachDirectives(f *ast.File, dirs []*directive) (order []attachedDir) {
	attached := map[ast.Stmt]*directive{}
	points := map[ast.Stmt]*directive{}
	ast.Inspect(f, func(n ast.Node) bool {
		var list []ast.Stmt
		var from token.Pos
		switch n := n.(type) {
		case *ast.BlockStmt:
			list, from = n.List, n.Lbrace+1
		case *ast.CaseClause:
			list, from = n.Body, n.Colon+1
		case *ast.CommClause:
			list, from = n.Body, n.Colon+1
		default:
			return true
		}
		for _, s := range list {
			// gofmt puts a directive written after a label on the line
			// after it: "outer:" / "//cape:parallel for" / "for ...".
			afterLabel := func(pos token.Pos) bool {
				ls, ok := s.(*ast.LabeledStmt)
				return ok && pos > ls.Colon && pos < ls.Stmt.Pos()
			}
			for _, d := range dirs {
				if d.pos >= from && d.pos < s.Pos() || afterLabel(d.pos) {
					m := attached
					if d.kind == dirCheckpoint {
						m = points
					}
					if prev := m[s]; prev != nil {
						t.errorf(d.pos, "second directive for one statement (the first is %s)", prev.text)
						d.used = true
						continue
					}
					d.used = true
					m[s] = d
					order = append(order, attachedDir{stmt: s, dir: d})
				}
			}
			from = s.End()
		}
		return true
	})
	return order
}

// attachedDir is a directive and the statement it applies to.
type attachedDir struct {
	stmt ast.Stmt
	dir  *directive
}

// newRegion makes the region of the directive d on the statement s of f,
// after checking that d fits s; a //cape:section directive is recorded in
// sectionDirs instead.
func (t *translator) newRegion(dirs *directives, f *ast.File, s ast.Stmt, d *directive, sectionDirs map[ast.Stmt]*directive) {
	inner, label := s, (*ast.LabeledStmt)(nil)
	if l, ok := s.(*ast.LabeledStmt); ok {
		inner, label = l.Stmt, l
	}
	switch d.kind {
	case dirSection:
		sectionDirs[s] = d
		return
	case dirFor:
		switch inner.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
		default:
			t.errorf(d.pos, "//cape:parallel for must precede a for statement")
			return
		}
	case dirSections:
		if _, ok := inner.(*ast.BlockStmt); !ok || label != nil {
			t.errorf(d.pos, "//cape:parallel sections must precede a block { ... } of //cape:section blocks")
			return
		}
	}
	r := &region{dir: d, file: f, stmt: inner, label: label,
		clauseOf: map[*types.Var]string{}, redOp: map[*types.Var]string{}, shared: map[*types.Var]bool{},
		refused: map[*types.Var]bool{},
		sched:   "Static"}
	dirs.regions = append(dirs.regions, r)
	dirs.regionAt[inner] = r
}

// setupRegion checks where r is, resolves its clauses and analyzes its
// loop header or sections.
func (t *translator) setupRegion(dirs *directives, r *region, sectionDirs map[ast.Stmt]*directive) {
	pos := r.dir.pos
	for p := t.parent[r.stmt]; p != nil && r.outer == nil; p = t.parent[p] {
		if s, ok := p.(ast.Stmt); ok && dirs.regionAt[s] != nil {
			// Nested: the runtime runs it whole on the node that reaches
			// it, as OpenMP does with nested parallelism off.
			r.outer = dirs.regionAt[s]
		}
	}
	r.fn = t.enclosing(r.stmt, isFunc)
	outer := r.fn
	for f := outer; f != nil; f = t.enclosing(f, isFunc) {
		outer = f
	}
	if d, ok := outer.(*ast.FuncDecl); !ok {
		t.errorf(pos, "parallel region in a package-level initializer: it would run before the CAPE runtime starts; move it into a function")
		return
	} else if d.Recv == nil && d.Name.Name == "init" {
		t.errorf(pos, "parallel region in an init function: it would run before the CAPE runtime starts; move it into main")
		return
	}
	switch s := r.stmt.(type) {
	case *ast.ForStmt:
		r.body = s.Body
		r.loop = t.forHeader(r, s)
	case *ast.RangeStmt:
		r.body = s.Body
		r.loop = t.rangeHeader(r, s)
	case *ast.BlockStmt:
		r.body = s
		for _, st := range s.List {
			blk, ok := st.(*ast.BlockStmt)
			if d := sectionDirs[st]; d == nil || !ok {
				t.errorf(st.Pos(), "a parallel sections block may only contain blocks { ... }, each preceded by //cape:section")
				continue
			}
			r.sections = append(r.sections, blk)
		}
		if len(s.List) == 0 {
			t.errorf(pos, "parallel sections block has no //cape:section")
		}
	}
	t.resolveClauses(r)
}

func (t *translator) resolveClauses(r *region) {
	seen := map[*types.Var]string{}
	haveSched := false
	for _, c := range r.dir.clauses {
		switch c.name {
		case "schedule":
			if haveSched {
				t.errorf(c.pos, "second schedule clause")
				continue
			}
			haveSched = true
			if len(c.args) > 2 {
				t.errorf(c.pos, "schedule takes a kind and an optional chunk size: schedule(dynamic, 4)")
				continue
			}
			switch c.args[0].text {
			case "static":
				r.sched = "Static"
			case "dynamic":
				r.sched = "Dynamic"
			case "guided":
				r.sched = "Guided"
			default:
				t.errorf(c.args[0].pos, "unknown schedule kind %q (want static, dynamic or guided)", c.args[0].text)
				continue
			}
			if len(c.args) == 2 {
				if r.dir.kind == dirSections {
					t.errorf(c.args[1].pos, "a sections schedule takes no chunk size")
					continue
				}
				t.checkChunk(r, c.args[1])
			}
		default:
			for _, a := range c.args {
				v := t.clauseVar(r, c.name, a)
				if v == nil {
					continue
				}
				if prev, dup := seen[v]; dup {
					if (prev == "firstprivate" && c.name == "lastprivate" || prev == "lastprivate" && c.name == "firstprivate") && (pointerFree(v.Type()) || isString(v.Type())) {
						// Both, as OpenMP allows: a copy that starts
						// from the variable's value and is handed over.
						if r.firstLast == nil {
							r.firstLast = map[*types.Var]bool{}
						}
						r.firstLast[v] = true
						r.clauseOf[v] = "lastprivate"
						continue
					}
					switch {
					case prev == c.name && c.name == "reduction":
						t.errorf(a.pos, "%s appears twice in reduction clauses: a variable has one reduction operator", a.text)
					case prev == c.name:
						t.errorf(a.pos, "%s appears twice in %s clauses: list it once", a.text, c.name)
					default:
						t.errorf(a.pos, "%s appears in both %s and %s: a variable has one clause (but firstprivate and lastprivate together, for a variable of numbers, booleans, arrays and structs of them, or a string)", a.text, prev, c.name)
					}
					r.refused[v] = true
					continue
				}
				seen[v] = c.name
				if c.name == "shared" {
					r.shared[v] = true
					continue
				}
				if c.name == "reduction" && !t.reducible(a, v, c.op) {
					r.refused[v] = true
					continue
				}
				if c.name == "lastprivate" && !pointerFree(v.Type()) && !isString(v.Type()) {
					t.errorf(a.pos, "lastprivate variable %s has type %s, which contains pointers: the last iteration's value would refer to memory of the node that ran it; keep the values in an array (lastprivate of a [N]T), or have the last iteration copy them into a slice made before the region", a.text, v.Type())
					r.refused[v] = true
					continue
				}
				r.clauseOf[v] = c.name
				r.redOp[v] = c.op
				r.order = append(r.order, v)
			}
		}
	}
}

// clauseVar resolves a clause argument to a variable in scope at r.
func (t *translator) clauseVar(r *region, clause string, a clauseArg) *types.Var {
	if !token.IsIdentifier(a.text) {
		t.errorf(a.pos, "%s: want a variable name, got %q", clause, a.text)
		return nil
	}
	at := r.stmt.Pos()
	scope := t.p.types.Scope().Innermost(at)
	if scope == nil {
		scope = t.p.types.Scope()
	}
	_, obj := scope.LookupParent(a.text, at)
	if obj == nil {
		t.errorf(a.pos, "%s: undefined: %s", clause, a.text)
		return nil
	}
	v, ok := obj.(*types.Var)
	if !ok || v.IsField() {
		t.errorf(a.pos, "%s: %s is not a variable", clause, a.text)
		return nil
	}
	if r.loop != nil && v == r.loop.v {
		t.errorf(a.pos, "%s: %s is the loop variable, which is private already", clause, a.text)
		return nil
	}
	if v.Pkg() != t.p.types {
		t.errorf(a.pos, "%s: %s belongs to package %s", clause, a.text, v.Pkg().Name())
		return nil
	}
	return v
}

// reducible reports whether v may be reduced with op, and reports why
// not: a number or boolean that op applies to, an array or slice of one,
// or a value of a type parameter each of whose types is one (reducible
// with op each).
func (t *translator) reducible(a clauseArg, v *types.Var, op string) bool {
	typ := v.Type()
	if k := reductionKind(typ); k != "" {
		typ = typ.Underlying().(interface{ Elem() types.Type }).Elem()
	}
	bs := termBasics(typ)
	if len(bs) == 0 {
		t.errorf(a.pos, "reduction variable %s has type %s; want an integer, floating-point, complex or boolean type, an array or slice of one, or a type parameter constrained to such types (~int | ~float64)", a.text, v.Type())
		return false
	}
	for _, b := range bs {
		if !t.reducibleBasic(a, v, op, b) {
			return false
		}
	}
	return true
}

// reducibleBasic reports whether a value of the basic type b, one that v
// may hold, may be reduced with op, and reports why not.
func (t *translator) reducibleBasic(a clauseArg, v *types.Var, op string, b *types.Basic) bool {
	if b.Info()&(types.IsInteger|types.IsFloat|types.IsComplex|types.IsBoolean) == 0 {
		t.errorf(a.pos, "reduction variable %s has type %s; want an integer, floating-point, complex or boolean type, or an array or slice of one", a.text, v.Type())
		return false
	}
	if b.Info()&types.IsComplex != 0 && op != "+" && op != "-" && op != "*" {
		t.errorf(a.pos, "reduction(%s:...) does not apply to complex numbers; %s has type %s", op, a.text, v.Type())
		return false
	}
	isBool := b.Info()&types.IsBoolean != 0
	switch op {
	case "&&", "||":
		if !isBool {
			t.errorf(a.pos, "reduction(%s:...) needs a boolean variable, %s has type %s", op, a.text, v.Type())
			return false
		}
	case "&", "|", "^":
		if b.Info()&types.IsInteger == 0 {
			t.errorf(a.pos, "reduction(%s:...) needs an integer variable, %s has type %s", op, a.text, v.Type())
			return false
		}
	default:
		if isBool {
			t.errorf(a.pos, "reduction(%s:...) needs a numeric variable, %s has type %s", op, a.text, v.Type())
			return false
		}
	}
	return true
}

// termBasics returns the basic types a value of type typ may have: its
// underlying basic type, or, for a type parameter, the types of one
// element of its constraint that lists only basic types (a union such as
// ~int | ~float64, directly or through embedded interfaces; the type set
// is the intersection of the elements, so within each). Nil if there is
// none such.
func termBasics(typ types.Type) []*types.Basic {
	if tp, ok := typ.(*types.TypeParam); ok {
		iface, ok := tp.Constraint().Underlying().(*types.Interface)
		if !ok {
			return nil
		}
		return ifaceBasics(iface, 0, func(*types.Basic) bool { return true })
	}
	if b, ok := typ.Underlying().(*types.Basic); ok {
		return []*types.Basic{b}
	}
	return nil
}

// ifaceBasics returns the basic types of the first element of iface (a
// union, a type or an interface, depth levels down at most) that lists
// only basic types that keep accepts, or nil. With plainBasic, it is
// non-nil where every type iface allows is a number or a boolean: its
// type set is the intersection of its elements (and methods), so one
// element that allows only those is enough (plainParam).
func ifaceBasics(iface *types.Interface, depth int, keep func(*types.Basic) bool) []*types.Basic {
	if depth > 4 {
		return nil
	}
	for terms := range embeddedTerms(iface) {
		if bs := termsBasics(terms, depth, keep); bs != nil {
			return bs
		}
	}
	return nil
}

// termsBasics returns the basic types of a union's terms, or nil if one
// allows another kind of type, or one keep does not accept.
func termsBasics(terms []types.Type, depth int, keep func(*types.Basic) bool) []*types.Basic {
	var out []*types.Basic
	for _, term := range terms {
		switch u := term.Underlying().(type) {
		case *types.Interface:
			bs := ifaceBasics(u, depth+1, keep)
			if bs == nil {
				return nil
			}
			out = append(out, bs...)
		case *types.Basic:
			if !keep(u) {
				return nil
			}
			out = append(out, u)
		default:
			return nil
		}
	}
	return out
}

func (t *translator) checkChunk(r *region, a clauseArg) {
	e, err := parser.ParseExpr(a.text)
	if err != nil {
		t.errorf(a.pos, "schedule chunk size %q: %v", a.text, err)
		return
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if err := types.CheckExpr(t.fset, t.p.types, r.stmt.Pos(), e, info); err != nil {
		t.errorf(a.pos, "schedule chunk size %q: %v", a.text, err)
		return
	}
	tv := info.Types[e]
	if b, ok := tv.Type.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		t.errorf(a.pos, "schedule chunk size %q has type %s, want an integer", a.text, tv.Type)
		return
	}
	if tv.Value != nil && constant.Sign(tv.Value) <= 0 {
		if a.text == tv.Value.String() {
			t.errorf(a.pos, "schedule chunk size %s: it must be positive", a.text)
		} else {
			t.errorf(a.pos, "schedule chunk size %s is %s: it must be positive", a.text, tv.Value)
		}
		return
	}
	r.chunk, r.chunkPos = a.text, a.pos
}

// canonFor is the error for a loop header that is not canonical.
const canonFor = "the loop header is not canonical: want for i := lo; i < hi; i++ (or <=, >, >=, i += step, i -= step, i--)"

// forHeader analyzes the header of the three-clause loop s of r: the loop
// variable, its bounds, the comparison and the step. It reports a header
// that is not canonical and returns nil then.
func (t *translator) forHeader(r *region, s *ast.ForStmt) *loopInfo {
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || len(init.Lhs) != 1 || len(init.Rhs) != 1 || (init.Tok != token.DEFINE && init.Tok != token.ASSIGN) || s.Cond == nil || s.Post == nil {
		t.errorf(s.Pos(), "%s", canonFor)
		return nil
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	v := t.varOf(init.Lhs[0])
	if !ok || v == nil {
		t.errorf(init.Pos(), "%s", canonFor)
		return nil
	}
	if !isInteger(v.Type()) && !integerParam(v.Type()) {
		t.errorf(id.Pos(), "loop variable %s has type %s, want an integer type", id.Name, v.Type())
		return nil
	}
	li := &loopInfo{v: v, name: id.Name, typ: v.Type(), define: init.Tok == token.DEFINE, lo: init.Rhs[0]}
	if !t.forCond(li, s) || !t.forPost(li, s) || !t.forStep(li) {
		return nil
	}
	up := li.op == token.LSS || li.op == token.LEQ
	if up == li.down {
		dir, bound := "down", "a bound above it"
		if !li.down {
			dir, bound = "up", "a bound below it"
		}
		t.errorf(s.Post.Pos(), "the loop's post statement moves %s %s, away from %s (%s): such a loop ends only by wrapping around or not at all; CAPE splits loops that move toward their bound", id.Name, dir, bound, t.text(s.Cond))
		return nil
	}
	li.cond, li.at = s.Cond, s.For
	if !t.forPure(li) || !t.forEnds(li, s) {
		return nil
	}
	return li
}

// forCond sets li's bound and comparison from the condition of s, written
// with the loop variable on the left (hi > i becomes i < hi). It reports a
// condition that is not canonical and returns false then.
func (t *translator) forCond(li *loopInfo, s *ast.ForStmt) bool {
	cond, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	if !ok {
		t.errorf(s.Cond.Pos(), "%s", canonFor)
		return false
	}
	li.op, li.hi = cond.Op, cond.Y
	if t.varOf(cond.X) != li.v {
		if t.varOf(cond.Y) != li.v {
			t.errorf(s.Cond.Pos(), "the loop condition must compare %s with a bound", li.name)
			return false
		}
		li.hi = cond.X
		switch cond.Op { // hi < i  ≡  i > hi
		case token.LSS:
			li.op = token.GTR
		case token.LEQ:
			li.op = token.GEQ
		case token.GTR:
			li.op = token.LSS
		case token.GEQ:
			li.op = token.LEQ
		}
	}
	switch li.op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		return true
	}
	t.errorf(cond.OpPos, "the loop condition must use <, <=, > or >=, not %s", cond.Op)
	return false
}

// forPost sets li's step and direction from the post statement of s
// (i++, i--, i += step, i -= step, i = i + step, ...). It reports a post
// statement that is not canonical and returns false then.
func (t *translator) forPost(li *loopInfo, s *ast.ForStmt) bool {
	v := li.v
	switch p := s.Post.(type) {
	case *ast.IncDecStmt:
		if t.varOf(p.X) != v {
			t.errorf(p.Pos(), "the loop increment must update %s", li.name)
			return false
		}
		li.down = p.Tok == token.DEC
	case *ast.AssignStmt:
		if len(p.Lhs) != 1 || len(p.Rhs) != 1 || t.varOf(p.Lhs[0]) != v {
			t.errorf(p.Pos(), "the loop increment must update %s", li.name)
			return false
		}
		switch p.Tok {
		case token.ADD_ASSIGN, token.SUB_ASSIGN:
			li.step, li.down = p.Rhs[0], p.Tok == token.SUB_ASSIGN
		case token.ASSIGN:
			b, ok := ast.Unparen(p.Rhs[0]).(*ast.BinaryExpr)
			switch {
			case ok && b.Op == token.ADD && t.varOf(b.X) == v:
				li.step = b.Y
			case ok && b.Op == token.ADD && t.varOf(b.Y) == v:
				li.step = b.X
			case ok && b.Op == token.SUB && t.varOf(b.X) == v:
				li.step, li.down = b.Y, true
			default:
				t.errorf(p.Pos(), "%s", canonFor)
				return false
			}
		default:
			t.errorf(p.Pos(), "%s", canonFor)
			return false
		}
	default:
		t.errorf(s.Post.Pos(), "%s", canonFor)
		return false
	}
	return true
}

// forStep checks a constant step: it must be positive, and a step of 1 is
// dropped (li.step nil means 1). It reports a step that is not positive and
// returns false then.
func (t *translator) forStep(li *loopInfo) bool {
	if li.step == nil {
		return true
	}
	if tv := t.info.Types[li.step]; tv.Value != nil {
		if constant.Sign(tv.Value) <= 0 {
			t.errorf(li.step.Pos(), "the loop step must be positive (count down with -= or --)")
			return false
		}
		if c, ok := constant.Int64Val(tv.Value); ok && c == 1 {
			li.step = nil
		}
	}
	return true
}

// rangeHeader analyzes for i := range n and for i, v := range slice.
func (t *translator) rangeHeader(r *region, s *ast.RangeStmt) *loopInfo {
	li := &loopInfo{rangeX: s.X, define: s.Tok == token.DEFINE}
	xt := t.info.TypeOf(s.X)
	switch u := xt.Underlying().(type) {
	case *types.Interface:
		if !integerParam(xt) {
			t.errorf(s.X.Pos(), "parallel for over %s, of type %s, is not supported (want an integer, a slice or an array)", t.text(s.X), xt)
			return nil
		}
		li.rangeInt = true // a type parameter whose types are all integers
	case *types.Basic:
		if u.Info()&types.IsInteger == 0 {
			t.errorf(s.X.Pos(), "parallel for over %s, of type %s, is not supported (want an integer, a slice or an array)", t.text(s.X), xt)
			return nil
		}
		li.rangeInt = true
	case *types.Slice, *types.Array:
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			t.errorf(s.X.Pos(), "parallel for over %s, of type %s, is not supported (want an integer, a slice or an array)", t.text(s.X), xt)
			return nil
		}
	default:
		t.errorf(s.X.Pos(), "parallel for over %s, of type %s, is not supported (want an integer, a slice or an array)", t.text(s.X), xt)
		return nil
	}
	if s.Key != nil {
		if _, ok := s.Key.(*ast.Ident); !ok {
			t.errorf(s.Key.Pos(), "the loop variable must be an identifier")
			return nil
		}
		li.name = s.Key.(*ast.Ident).Name
		li.v = t.varOf(s.Key)
	}
	if li.v != nil {
		li.typ = li.v.Type()
	}
	if s.Value != nil {
		id, ok := s.Value.(*ast.Ident)
		if !ok {
			t.errorf(s.Value.Pos(), "the range value must be an identifier")
			return nil
		}
		li.value, li.valueVar = id, t.varOf(id)
	}
	return li
}

// reductionKind is "array" or "slice" for a reduction variable of that
// kind (reduced element by element), "" otherwise.
func reductionKind(t types.Type) string {
	switch t.Underlying().(type) {
	case *types.Array:
		return "array"
	case *types.Slice:
		return "slice"
	}
	return ""
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// integerParam reports whether t is a type parameter whose constraint
// admits only integer types (T ~int, T ~int32 | ~int64).
func integerParam(t types.Type) bool {
	tp, ok := t.(*types.TypeParam)
	if !ok {
		return false
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	return ok && ifaceBasics(iface, 0, func(b *types.Basic) bool { return b.Info()&types.IsInteger != 0 }) != nil
}

// pointerFree reports whether values of type t contain no pointers, so they
// may live in the arena.
// isString reports whether t is a string type: a lastprivate string's
// bytes travel.
func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

func pointerFree(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.String && u.Kind() != types.UnsafePointer && u.Kind() != types.UntypedNil && u.Kind() != types.UntypedString
	case *types.Array:
		return pointerFree(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if !pointerFree(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}
