package translate

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
)

// Config controls a translation. The zero value is ready to use. A Config
// may be used by several goroutines at once if its Importer may.
type Config struct {
	// Importer resolves the package's imports while type checking. Nil means
	// the one NewImporter returns.
	Importer types.Importer
	// NewImporter, used when Importer is nil, returns an importer for the
	// package's imports (paths), resolved from dir; it is called once per
	// translation, after parsing. Package gocmd's ExportImporter, which
	// runs `go list -export` once, is the one cape uses: this package runs
	// no command itself.
	NewImporter func(fset *token.FileSet, dir string, paths []string) (types.Importer, error)
}

// ErrNoImporter is returned by a translation whose Config has neither an
// Importer nor a NewImporter.
var ErrNoImporter = errors.New("translate: no importer: set Config.Importer or Config.NewImporter")

// Result is the translation of one package.
type Result struct {
	// Package is the package name.
	Package string
	// Files maps the path of every file that the translation changed to
	// its translated, gofmt-ed source. Files without changes are absent.
	Files map[string][]byte
	// Regions is the number of parallel regions translated.
	Regions int
	// Warnings are positioned remarks that do not stop the translation,
	// such as arena memory that is never reclaimed.
	Warnings ErrorList
}

// Package translates the package in dir: its non-test Go files for the
// current build context. Diagnostics come back as an ErrorList; other
// errors (unreadable files, the go command failing) are returned as they are.
func (c *Config) Package(dir string) (*Result, error) {
	paths, err := goFiles(dir)
	if err != nil {
		return nil, err
	}
	return c.Files(dir, paths, nil)
}

// Files translates the package made of the files at paths (run from dir,
// which resolves imports). src, if not nil, supplies the contents of some
// of the files; the others are read from disk. Paths are used as given in
// diagnostics and //line directives.
func (c *Config) Files(dir string, paths []string, src map[string][]byte) (*Result, error) {
	fset := token.NewFileSet()
	p, diags, err := parseFiles(fset, paths, src)
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		diags.sort()
		return nil, diags
	}
	imp := c.Importer
	if imp == nil {
		if c.NewImporter == nil {
			return nil, ErrNoImporter
		}
		if imp, err = c.NewImporter(fset, dir, p.imports()); err != nil {
			return nil, err
		}
	}
	if diags := p.check(imp); len(diags) > 0 {
		diags.sort()
		return nil, diags.dedup()
	}
	t := newTranslator(p)
	t.foreign = newForeign(imp, fset)
	t.foreign.addOwn(p.types.Path(), t.info, p.files, t.parent)
	res := t.run()
	if len(t.diags) > 0 {
		t.diags.sort()
		return nil, t.diags.dedup()
	}
	return res, nil
}

// translator holds what every pass of one package's translation reads:
// the package's read-only inputs, the results of the index passes, and the
// diagnostics. The later passes keep their state in their own structs and
// hand their results on explicitly (passes.go).
type translator struct {
	p      *pkg
	fset   *token.FileSet
	info   *types.Info
	diags  ErrorList
	parent map[ast.Node]ast.Node
	// assigned: the variables each function assigns (assignedIn), made
	// once per function the sections' checks ask about.
	assigned map[ast.Node]map[*types.Var]bool
	fileOf   map[*token.File]*ast.File

	// The directives pass' result (findRegions), read-only once made.
	directives

	// The package-wide index (collectFacts, collectStores), read-only
	// once made.
	facts  *facts
	stores *stores
	// The package's named types in source order (typeNames), and each
	// object's defining identifier (defIdentOf).
	named    []*types.TypeName
	defIdent map[types.Object]*ast.Ident
	// extImpls memoizes externalImpl's answers (calls.go): a cache of a
	// question about the imported packages, not a pass's result.
	extImpls []extImpl
	// reach memoizes regionReach (last.go): which functions may run a
	// region, asked by findLast, findLeaving and regionsInGoroutines.
	reach *reach
	// prints memoizes printReach (stdout.go): which functions may write
	// to standard output, asked by printsInGoroutines.
	prints *reach
	// flowViews are the views of other packages the flow analysis reads
	// functions of (foreignFlowView), by import path.
	flowViews map[string]*translator
	// redirect memoizes redirects (stdout.go).
	redirect outputRedirect
	// imageWhy memoizes imagesElsewhere (images.go).
	imageWhy *string
	// warnings are the analyses' warnings (scratchWarning); the
	// translation's others are the frees'.
	warnings ErrorList
	// foreign reads other packages' source for the package variables
	// their functions change (foreign.go); nil: not checked.
	foreign *foreign
}

func newTranslator(p *pkg) *translator {
	t := &translator{
		p: p, fset: p.fset, info: p.info,
		parent:   map[ast.Node]ast.Node{},
		fileOf:   map[*token.File]*ast.File{},
		named:    []*types.TypeName{},
		defIdent: map[types.Object]*ast.Ident{},
	}
	for id, o := range p.info.Defs {
		if o != nil {
			t.defIdent[o] = id
		}
	}
	for _, f := range p.files {
		t.fileOf[p.fset.File(f.Pos())] = f
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if len(stack) > 0 {
				t.parent[n] = stack[len(stack)-1]
			}
			if ts, ok := n.(*ast.TypeSpec); ok {
				if tn, ok := t.info.Defs[ts.Name].(*types.TypeName); ok && !tn.IsAlias() && ts.TypeParams == nil {
					t.named = append(t.named, tn)
				}
			}
			stack = append(stack, n)
			return true
		})
	}
	return t
}

func (t *translator) errorf(pos token.Pos, format string, args ...any) {
	t.diags = append(t.diags, Diagnostic{Pos: t.fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
}

// originErrorf reports a place that the origin analysis cannot put in the
// arena, once: a place reached again, for another write or variable, is
// not reported a second time. A soft trace hands it to its caller instead
// (softly), without marking the place reported.
func (t *analyzer) originErrorf(tr trace, pos token.Pos, format string, args ...any) {
	if tr.soft() {
		*tr.found = append(*tr.found, Diagnostic{Pos: t.fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
		return
	}
	if t.originErrs[pos] {
		return
	}
	t.originErrs[pos] = true
	t.errorf(pos, format, args...)
}

// warnf records a warning at pos in list.
func (t *translator) warnf(list *ErrorList, pos token.Pos, format string, args ...any) {
	*list = append(*list, Diagnostic{Pos: t.fset.Position(pos), Msg: "warning: " + fmt.Sprintf(format, args...)})
}

// where formats pos briefly ("main.go:12") for messages that refer to a
// second place.
func (t *translator) where(pos token.Pos) string {
	p := t.fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// run runs the passes in order (doc.go lists them) and hands each one's
// result to those that need it.
func (t *translator) run() *Result {
	t.index()
	// The walk's findings are discarded: analyze walks the same calls of
	// the same regions and reports them (TestWalkFindingsReported).
	code, _ := t.findRegionCode()
	place := t.analyze(code)
	t.loopHeadWrites()
	t.checkBoxes(place)
	t.pointsLive(place)
	t.sequentialRandom(code)
	t.mapOrder(code)
	accepted := t.regionsInGoroutines()
	t.printsInGoroutines()
	t.printsBesideRegions(accepted)
	if len(t.diags) > 0 {
		return nil
	}
	frees := t.planFrees(code, place)
	if t.checkAllocSites(code, place, frees); len(t.diags) > 0 {
		return nil
	}
	return t.newEmitter(place, frees, t.findLast()).emit()
}

// index runs the passes whose results every later pass reads, and which
// the translator keeps: the facts, the stores and the directives.
func (t *translator) index() {
	c := &collector{translator: t, facts: newFacts(), stores: &stores{fields: map[*types.Var][]store{}}}
	c.collectFacts()
	c.addressSources()
	c.collectStores()
	t.facts, t.stores = c.facts, c.stores
	t.directives = t.findRegions()
}

// collectFacts records, package-wide, every assignment to each variable,
// every static call of each function, every use of each variable, and where
// the receivers of methods come from.
func (t *collector) collectFacts() {
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			t.recvFacts(n)
			switch n := n.(type) {
			case *ast.FuncDecl:
				if fn, ok := t.info.Defs[n.Name].(*types.Func); ok {
					t.facts.decls[fn] = n
				}
				t.paramSources(n.Type, t.info.Defs[n.Name])
			case *ast.FuncLit:
				t.paramSources(n.Type, nil)
			case *ast.ValueSpec:
				t.specSources(n)
			case *ast.AssignStmt:
				t.assignSources(n)
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if v := t.varOf(e); v != nil {
						s := source{pos: e.Pos(), unknown: "a range clause"}
						if e == n.Value {
							s.rng = n
						}
						t.facts.sources[v] = append(t.facts.sources[v], s)
					}
				}
			case *ast.TypeSwitchStmt:
				// Implicit per-clause variables carry interface values: never arena memory.
			case *ast.CallExpr:
				if fn := t.staticCallee(n); fn != nil {
					t.facts.calls[fn] = append(t.facts.calls[fn], n)
				}
			case *ast.Ident:
				t.identFacts(n)
			}
			return true
		})
	}
}

// embedded reports whether the declaration n has a //go:embed directive
// (on itself, or on its var declaration of one spec).
func (t *collector) embedded(n *ast.ValueSpec) bool {
	docs := []*ast.CommentGroup{n.Doc}
	if gd, ok := t.parent[n].(*ast.GenDecl); ok && len(gd.Specs) == 1 {
		docs = append(docs, gd.Doc)
	}
	for _, d := range docs {
		if d == nil {
			continue
		}
		for _, c := range d.List {
			if strings.HasPrefix(c.Text, "//go:embed ") {
				return true
			}
		}
	}
	return false
}

// specSources records the values the variables of the declaration n are
// given.
func (t *collector) specSources(n *ast.ValueSpec) {
	for i, name := range n.Names {
		v, ok := t.info.Defs[name].(*types.Var)
		if !ok {
			continue
		}
		switch {
		case len(n.Values) == 0 && t.embedded(n):
			t.facts.sources[v] = append(t.facts.sources[v], source{pos: name.Pos(), unknown: "the file //go:embed puts in the program's data; copy it into a slice made with make (b := make([]byte, len(raw)); copy(b, raw))"})
		case len(n.Values) == 0:
			t.facts.sources[v] = append(t.facts.sources[v], source{pos: name.Pos(), zero: true})
		case len(n.Values) == len(n.Names):
			t.facts.sources[v] = append(t.facts.sources[v], source{pos: n.Values[i].Pos(), expr: n.Values[i]})
		default:
			t.facts.sources[v] = append(t.facts.sources[v], t.tupleSource(n.Values[0], i))
		}
	}
}

// assignSources records the values the variables assigned by n are given.
func (t *collector) assignSources(n *ast.AssignStmt) {
	if n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
		for _, l := range n.Lhs {
			if v := t.varOf(l); v != nil {
				t.facts.sources[v] = append(t.facts.sources[v], source{pos: n.Pos(), unknown: "an " + n.Tok.String() + " assignment"})
			}
		}
		return
	}
	for i, l := range n.Lhs {
		v := t.varOf(l)
		if v == nil {
			continue
		}
		if len(n.Lhs) == len(n.Rhs) {
			t.facts.sources[v] = append(t.facts.sources[v], source{pos: n.Rhs[i].Pos(), expr: n.Rhs[i]})
		} else {
			t.facts.sources[v] = append(t.facts.sources[v], t.tupleSource(n.Rhs[0], i))
		}
	}
}

// tupleSource is the source of the variable given the value number i of
// e, an expression of several values: the call's result, where e is a
// call (data, err := load(name)).
func (t *collector) tupleSource(e ast.Expr, i int) source {
	s := source{pos: e.Pos(), unknown: "a multi-value expression"}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		if tv, ok := t.info.Types[call.Fun]; !ok || !tv.IsType() {
			s.tuple, s.result = call, i
		}
	}
	return s
}

// identFacts records the use n of a variable, or of a function as a value
// (not called).
func (t *collector) identFacts(n *ast.Ident) {
	switch o := t.info.Uses[n].(type) {
	case *types.Var:
		if !o.IsField() {
			t.facts.uses[o] = append(t.facts.uses[o], n)
		}
	case *types.Func:
		var fun ast.Expr = n // the callee expression, if n is called
		if sel, ok := t.parent[n].(*ast.SelectorExpr); ok && sel.Sel == n {
			fun = sel
		}
		switch ix := t.parent[fun].(type) { // an instantiation: fill[float64](a, k)
		case *ast.IndexExpr:
			if ix.X == fun {
				fun = ix
			}
		case *ast.IndexListExpr:
			if ix.X == fun {
				fun = ix
			}
		}
		if call, ok := t.parent[fun].(*ast.CallExpr); ok && call.Fun == fun {
			return
		}
		t.facts.valueUse[o] = true
	}
}

// paramSources marks the parameters and results of a function.
func (t *collector) paramSources(ft *ast.FuncType, obj types.Object) {
	fn, _ := obj.(*types.Func)
	if d, ok := t.parent[ft].(*ast.FuncDecl); ok && d.Recv != nil {
		for _, fld := range d.Recv.List {
			for _, name := range fld.Names {
				if v, ok := t.info.Defs[name].(*types.Var); ok {
					t.facts.sources[v] = append(t.facts.sources[v], source{pos: name.Pos(), param: fn, recv: true})
				}
			}
		}
	}
	idx := 0
	if ft.Params != nil {
		for _, fld := range ft.Params.List {
			names := fld.Names
			if len(names) == 0 {
				idx++
				continue
			}
			for _, name := range names {
				if v, ok := t.info.Defs[name].(*types.Var); ok {
					t.facts.sources[v] = append(t.facts.sources[v], source{pos: name.Pos(), param: fn, index: idx, isParam: true})
				}
				idx++
			}
		}
	}
	if ft.Results != nil {
		for _, fld := range ft.Results.List {
			for _, name := range fld.Names {
				if v, ok := t.info.Defs[name].(*types.Var); ok {
					t.facts.sources[v] = append(t.facts.sources[v], source{pos: name.Pos(), unknown: "a named result"})
				}
			}
		}
	}
}

// varOf returns the variable that the expression e (an identifier, perhaps
// parenthesized) denotes, or nil.
func (t *translator) varOf(e ast.Expr) *types.Var {
	e = ast.Unparen(e)
	id, ok := e.(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	o := t.info.Defs[id]
	if o == nil {
		o = t.info.Uses[id]
	}
	v, _ := o.(*types.Var)
	if v != nil && v.IsField() {
		return nil
	}
	return v
}

// staticCallee returns the package-local function or method that call
// calls statically, or nil.
func (t *translator) staticCallee(call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel := t.info.Selections[f]; sel != nil && sel.Kind() != types.MethodVal {
			return nil
		} else if sel != nil {
			if _, isIface := sel.Recv().Underlying().(*types.Interface); isIface {
				return nil
			}
		}
		id = f.Sel
	case *ast.IndexExpr: // generic instantiation
		if i, ok := f.X.(*ast.Ident); ok {
			id = i
		}
	case *ast.IndexListExpr:
		if i, ok := f.X.(*ast.Ident); ok {
			id = i
		}
	default:
		return nil
	}
	if id == nil {
		return nil
	}
	fn, ok := t.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != t.p.types {
		return nil
	}
	return fn.Origin()
}

// enclosing returns the innermost ancestor of n for which match is true.
func (t *translator) enclosing(n ast.Node, match func(ast.Node) bool) ast.Node {
	for p := t.parent[n]; p != nil; p = t.parent[p] {
		if match(p) {
			return p
		}
	}
	return nil
}

func isFunc(n ast.Node) bool {
	switch n.(type) {
	case *ast.FuncDecl, *ast.FuncLit:
		return true
	}
	return false
}

// sortedRegions returns the regions of f in source order.
func (t *translator) sortedRegions() []*region {
	out := append([]*region(nil), t.regions...)
	sort.Slice(out, func(i, j int) bool { return out[i].stmt.Pos() < out[j].stmt.Pos() })
	return out
}
