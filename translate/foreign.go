package translate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
)

// This file finds the package variables that a function of another
// package may change: every node has its own copy of them, so a parallel
// region that calls such a function changes them only on the node that
// runs the iteration (a counter, a cache, a running total in the user's
// own package `solver`). The translator does not rewrite other packages,
// so it reads their source (outside the standard library), type-checks it
// with the same importer, and follows the functions the called one calls
// statically, in that package and in others outside the standard
// library.

// A SourceImporter is an Importer that can also name the Go files of a
// package outside the standard library. With one, the translator refuses
// a region that calls a function of such a package that changes the
// package's variables; without one, such calls are not checked.
type SourceImporter interface {
	types.Importer
	// Sources returns the paths of the package's Go files, or false for a
	// package of the standard library or one it does not know.
	Sources(path string) ([]string, bool)
}

// A stateWrite is where a function of another package changes a package
// variable: v, at pos, in fn (the called function or one it calls); or,
// v nil, what it does there that may change one.
type stateWrite struct {
	v    *types.Var
	pos  token.Pos
	fn   *types.Func
	what string // when v is nil: the change CAPE cannot tell the place of
	// process: what is a change of the process's state (its settings,
	// math/rand's generator, the standard input's position), said whole.
	process bool
}

// foreign holds the other packages' source the translator has read, and
// its answers.
type foreign struct {
	imp   SourceImporter // nil: no sources, no checks
	fset  *token.FileSet
	pkgs  map[string]*foreignPkg // by import path; nil: no source, or it did not type-check
	memo  map[string]*stateWrite // by the function's full name
	draws map[string]*draw       // drawOf's answers, by "draw " and the function's full name
	busy  map[string]bool        // the functions and parameters being followed (recursion)
	uses  map[string]paramUse    // paramUse's answers, by function and parameter
	// imports are the import paths of each package importedElsewhere
	// read (nil: one of its files did not parse).
	imports map[string][]string
	// cycles counts the times a question met one being answered: an
	// answer found meanwhile leaves out what that one will find, so it is
	// not kept (the first question's answer has it all).
	cycles int
}

// foreignPkg is one other package, type-checked from its source.
type foreignPkg struct {
	info    *types.Info
	decls   map[string]*ast.FuncDecl // by full name
	inits   []ast.Node               // the package variables' declarations and the init functions
	parents map[ast.Node]ast.Node    // each node's parent, in every file
}

func newForeign(imp types.Importer, fset *token.FileSet) *foreign {
	si, _ := imp.(SourceImporter)
	return &foreign{imp: si, fset: fset, pkgs: map[string]*foreignPkg{}, memo: map[string]*stateWrite{}, draws: map[string]*draw{}, busy: map[string]bool{}, uses: map[string]paramUse{}, imports: map[string][]string{}}
}

// load reads and type-checks the package at path, once.
func (f *foreign) load(path string) *foreignPkg {
	if f == nil || f.imp == nil {
		return nil
	}
	if fp, ok := f.pkgs[path]; ok {
		return fp
	}
	f.pkgs[path] = nil
	files, ok := f.imp.Sources(path)
	if !ok || len(files) == 0 {
		return nil
	}
	var asts []*ast.File
	for _, name := range files {
		af, err := parser.ParseFile(f.fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		asts = append(asts, af)
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: f.imp, FakeImportC: true, Error: func(error) {}}
	if _, err := conf.Check(path, f.fset, asts, info); err != nil {
		return nil
	}
	fp := &foreignPkg{info: info, decls: map[string]*ast.FuncDecl{}, parents: map[ast.Node]ast.Node{}}
	for _, af := range asts {
		addParents(fp.parents, af)
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					fp.inits = append(fp.inits, d)
				} else if fn, ok := info.Defs[d.Name].(*types.Func); ok && d.Body != nil {
					fp.decls[fn.FullName()] = d
				}
			case *ast.GenDecl:
				if d.Tok == token.VAR {
					fp.inits = append(fp.inits, d)
				}
			}
		}
	}
	f.pkgs[path] = fp
	return fp
}

// addOwn makes the package being translated (path, type-checked as info,
// of files, parents its nodes' parents) one whose functions paramUse can
// read, as another package's: whether a method of its own only reads its
// receiver.
func (f *foreign) addOwn(path string, info *types.Info, files []*ast.File, parents map[ast.Node]ast.Node) {
	if f == nil || f.imp == nil {
		return
	}
	fp := &foreignPkg{info: info, decls: map[string]*ast.FuncDecl{}, parents: parents}
	for _, af := range files {
		for _, d := range af.Decls {
			if d, ok := d.(*ast.FuncDecl); ok && d.Body != nil {
				if fn, ok := info.Defs[d.Name].(*types.Func); ok {
					fp.decls[fn.FullName()] = d
				}
			}
		}
	}
	f.pkgs[path] = fp
}

// stateWrite returns where fn, a function or method of another package,
// or a function it calls statically, changes a package variable; nil if
// it does not, or its source cannot be read (the standard library's is
// not: its package state is process state, see processState).
func (f *foreign) stateWrite(fn *types.Func) *stateWrite {
	if f == nil || f.imp == nil || fn == nil || fn.Pkg() == nil {
		return nil
	}
	fn = fn.Origin()
	key := fn.FullName()
	return answer(f, f.memo, key, func() *stateWrite {
		fp := f.load(fn.Pkg().Path())
		if fp == nil || fp.decls[key] == nil {
			return nil
		}
		return f.walk(fp, fp.decls[key])
	})
}

// answer returns memo's answer to the question key, computing it once:
// a question met again while it is being answered (a cycle of calls)
// answers nil, since what it finds its first asking reports; an answer
// found nil while a cycle was met leaves out what that one will find, so
// it is not kept.
func answer[T any](f *foreign, memo map[string]*T, key string, compute func() *T) *T {
	if v, ok := memo[key]; ok {
		return v
	}
	if f.busy[key] {
		f.cycles++
		return nil
	}
	f.busy[key] = true
	before := f.cycles
	v := compute()
	delete(f.busy, key)
	if v != nil || f.cycles == before {
		memo[key] = v
	}
	return v
}

// walk looks through decl's body (function literals included) for a
// change of a package variable: an assignment, ++ or --, & of it or of a
// part of it, delete, clear or copy into it, a send or receive on it, a
// method called on it that may write it, it handed to a function that may
// write it, or the same through a local variable given it or ranging over
// it; a write through a call's result; a call of a function value CAPE
// cannot follow (one the function is handed as a parameter is its
// caller's); a change of the process's state; or a call of a function
// that makes one.
func (f *foreign) walk(fp *foreignPkg, decl *ast.FuncDecl) *stateWrite {
	w := &stateWalk{f: f, info: fp.info, alias: map[*types.Var]*types.Var{}, params: map[*types.Var]bool{}}
	w.fn, _ = fp.info.Defs[decl.Name].(*types.Func)
	for _, fl := range []*ast.FieldList{decl.Recv, decl.Type.Params} {
		if fl == nil {
			continue
		}
		for _, fld := range fl.List {
			for _, name := range fld.Names {
				if v, ok := fp.info.Defs[name].(*types.Var); ok {
					w.params[v] = true
				}
			}
		}
	}
	ast.Inspect(decl.Body, w.visit)
	return w.found
}

// stateWalk is one walk's state.
type stateWalk struct {
	f      *foreign
	info   *types.Info
	fn     *types.Func
	alias  map[*types.Var]*types.Var // local → the package variable it refers into
	params map[*types.Var]bool       // the function's parameters and receiver
	found  *stateWrite
}

// root is the package variable e is rooted at, directly or through a
// local alias, or nil.
func (w *stateWalk) root(e ast.Expr) *types.Var {
	v := rootVar(w.info, e)
	if v == nil {
		return nil
	}
	if a := w.alias[v]; a != nil {
		return a
	}
	if isPackageVar(v) {
		return v
	}
	return nil
}

// hit records a change of the package variable e is rooted at, or, e
// being rooted at a call's result, a write through it.
func (w *stateWalk) hit(e ast.Expr) {
	if w.found != nil {
		return
	}
	if v := w.root(e); v != nil {
		w.found = &stateWrite{v: v, pos: e.Pos(), fn: w.fn}
		return
	}
	if call, ok := placeRoot(w.info, e).(*ast.CallExpr); ok {
		if _, ok := w.info.Uses[identOf(call.Fun)].(*types.Builtin); !ok {
			w.unknown(e.Pos(), "writes through the result of "+types.ExprString(call.Fun)+"()")
		}
	}
}

// unknown records a change CAPE cannot tell the place of.
func (w *stateWalk) unknown(pos token.Pos, what string) {
	if w.found == nil {
		w.found = &stateWrite{pos: pos, fn: w.fn, what: what}
	}
}

// process records a change of the process's state (stateWrite.process).
func (w *stateWalk) process(pos token.Pos, what string) {
	if w.found == nil {
		w.found = &stateWrite{pos: pos, fn: w.fn, what: what, process: true}
	}
}

func (w *stateWalk) visit(n ast.Node) bool {
	if w.found != nil {
		return false
	}
	switch x := n.(type) {
	case *ast.AssignStmt:
		for i, l := range x.Lhs {
			if x.Tok != token.DEFINE {
				w.hit(l)
			}
			if len(x.Lhs) == len(x.Rhs) {
				w.noteAlias(l, x.Rhs[i])
			}
		}
	case *ast.RangeStmt:
		for _, e := range []ast.Expr{x.Key, x.Value} {
			if e != nil && x.Tok == token.ASSIGN {
				w.hit(e)
			}
		}
		if x.Value != nil {
			w.noteAlias(x.Value, x.X) // for _, g := range all { g.V[i] = v }
		}
	case *ast.ValueSpec:
		for i, name := range x.Names {
			if i < len(x.Values) {
				w.noteAlias(name, x.Values[i])
			}
		}
	case *ast.IncDecStmt:
		w.hit(x.X)
	case *ast.SendStmt:
		w.hit(x.Chan)
	case *ast.UnaryExpr:
		if x.Op == token.AND || x.Op == token.ARROW {
			w.hit(x.X)
		}
	case *ast.CallExpr:
		w.call(x)
	}
	return w.found == nil
}

// noteAlias records that the local variable lhs refers into the package
// variable that rhs is rooted at, when its type holds references.
func (w *stateWalk) noteAlias(lhs, rhs ast.Expr) {
	id, ok := ast.Unparen(lhs).(*ast.Ident)
	if !ok {
		return
	}
	v, _ := w.info.ObjectOf(id).(*types.Var)
	if v == nil || isPackageVar(v) || pointerFree(v.Type()) {
		return
	}
	if src := w.root(rhs); src != nil {
		w.alias[v] = src
	}
}

// call looks at one call: a builtin that changes its first argument; a
// method that may write its receiver, a package variable; a package
// variable handed to a function that may write it; a function value CAPE
// cannot follow; a change of the process's state; and what the callee
// changes.
func (w *stateWalk) call(call *ast.CallExpr) {
	info := w.info
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return // a conversion
	}
	fun := ast.Unparen(call.Fun)
	if b, ok := info.Uses[identOf(fun)].(*types.Builtin); ok {
		if len(call.Args) > 0 && slices.Contains([]string{"delete", "clear", "copy"}, b.Name()) {
			w.hit(call.Args[0])
		}
		return
	}
	callee := w.callee(call)
	if callee == nil {
		w.dynamic(call)
		return
	}
	if what := processChange(callee); what != "" {
		w.process(call.Pos(), what)
		return
	}
	if readsStdin(info, callee, call) {
		w.process(call.Pos(), "reads the standard input ("+callee.Pkg().Name()+"."+callee.Name()+"), whose position is the process's")
		return
	}
	if fullName := callee.FullName(); fullName == "(*sync.Once).Do" {
		return // its function, a literal here, is walked where it stands
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok && info.Selections[sel] != nil && !balanced(callee) && w.root(sel.X) != nil {
		sig, _ := callee.Type().(*types.Signature)
		_, ptr := sig.Recv().Type().(*types.Pointer)
		if ptr && w.f.mayWrite(callee) || !ptr && !pointerFree(sig.Recv().Type()) {
			w.hit(sel.X)
		}
	}
	sig, _ := callee.Type().(*types.Signature)
	for i, a := range call.Args {
		if sig == nil || w.root(a) == nil || pointerFree(info.TypeOf(a)) || !w.f.mayWriteArg(callee, paramIndex(sig, i)) {
			continue
		}
		w.hit(a)
	}
	if sw := w.f.stateWrite(callee); sw != nil && w.found == nil {
		w.found = sw
	}
}

// processChange says what fn, a function of the standard library, changes
// of the process's state whatever its arguments (its settings, math/rand's
// generator, the standard input's position), or "".
func processChange(fn *types.Func) string {
	if fn.Pkg() == nil {
		return ""
	}
	name := fn.Pkg().Name() + "." + fn.Name()
	switch {
	case processState[fn.Pkg().Path()+"."+fn.Name()]:
		return "changes the process's state (" + name + ")"
	case sharedDraw(fn):
		return "draws from math/rand's one generator (" + name + "), whose state is the process's"
	case scansStdin(fn):
		return "reads the standard input (" + name + "), whose position is the process's"
	}
	return ""
}

// callee is the function or method call calls statically, or nil.
func (w *stateWalk) callee(call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr: // an instantiated generic function
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch x := ast.Unparen(fun).(type) {
	case *ast.Ident:
		fn, _ := w.info.Uses[x].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel := w.info.Selections[x]; sel != nil {
			if sel.Kind() != types.MethodVal || types.IsInterface(sel.Recv()) {
				return nil
			}
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		fn, _ := w.info.Uses[x.Sel].(*types.Func)
		return fn
	}
	return nil
}

// dynamic looks at a call of a function value or an interface method: one
// the function is handed (a parameter, or a method of one) is its
// caller's to know; a literal called where it stands is walked; any other
// is a change CAPE cannot follow.
func (w *stateWalk) dynamic(call *ast.CallExpr) {
	fun := ast.Unparen(call.Fun)
	if _, lit := fun.(*ast.FuncLit); lit {
		return
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok && w.info.Selections[sel] != nil {
		fun = sel.X // an interface method: what is it called on?
	}
	if v := rootVar(w.info, fun); v != nil && w.params[v] {
		return
	}
	w.unknown(call.Pos(), "calls "+types.ExprString(call.Fun)+", a function value or interface method CAPE cannot follow")
}

// rootVar is the variable an expression such as v, v.f, v[i], v[i:j], *v
// or pkg.V is rooted at, or nil.
func rootVar(info *types.Info, e ast.Expr) *types.Var {
	var v *types.Var
	switch r := placeRoot(info, e).(type) {
	case *ast.Ident:
		v, _ = info.ObjectOf(r).(*types.Var)
	case *ast.SelectorExpr:
		v, _ = info.Uses[r.Sel].(*types.Var)
	}
	return v
}

// isPackageVar reports whether v is declared at a package's top level.
func isPackageVar(v *types.Var) bool {
	return v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
}

// balanced reports whether fn, a method with a pointer receiver, leaves
// what its caller sees as it was: a lock's (back as it was when the
// caller returns), a pool's (a cache of scratch values), or a read.
func balanced(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	switch path := fn.Pkg().Path(); {
	case path == "sync/atomic":
		return fn.Name() == "Load"
	case path != "sync":
		return false
	}
	switch fn.FullName() {
	case "(*sync.Mutex).Lock", "(*sync.Mutex).Unlock", "(*sync.Mutex).TryLock",
		"(*sync.RWMutex).Lock", "(*sync.RWMutex).Unlock", "(*sync.RWMutex).RLock", "(*sync.RWMutex).RUnlock",
		"(*sync.RWMutex).TryLock", "(*sync.RWMutex).TryRLock",
		"(*sync.Pool).Get", "(*sync.Pool).Put", "(*sync.Map).Load", "(*sync.Map).Range":
		return true
	}
	return false
}

// foreignWhere is pos as dir/file.go:line:col: a file of another package.
func (t *translator) foreignWhere(pos token.Pos) string {
	p := t.fset.Position(pos)
	return fmt.Sprintf("%s/%s:%d:%d", filepath.Base(filepath.Dir(p.Filename)), filepath.Base(p.Filename), p.Line, p.Column)
}

// funcName is fn's name, with its receiver's type for a method (T.M).
func funcName(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return fn.Name()
	}
	rt := sig.Recv().Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	if n, ok := rt.(*types.Named); ok {
		return n.Obj().Name() + "." + fn.Name()
	}
	return fn.Name()
}

// A paramUse is how a function of another package uses one of its
// pointer or slice parameters or its pointer receiver: known when every
// use reads it, writes an element of it (a slice of numbers) or of one of
// its slice fields of numbers, writes one of its number fields, or hands
// it to a method or function that does no more; writes when some use
// assigns or updates; updates when one of those writes of an element is
// an update (x op= v, x++), fieldUpdates when one of a number field is;
// carried when it reads an element of what it writes elements of at
// another index (g.V[i] = g.V[i-1] + g.V[i+1]): a dependence between
// iterations that the caller's analysis does not see. What it writes is then memory the argument
// reaches, which the caller's analysis traces (need), as for this
// package's functions. view when it returns a slice of the elements the
// parameter refers to (a row, m.Data[i*m.C:(i+1)*m.C]): its caller's use
// of the result is a use of its argument (viewUse), which a caller of
// another package may only read; viewReads when it reads elements
// through such a slice, at places readsOthers cannot compare with those
// it writes (so a function that also writes them is carried);
// fieldWrites when it assigns or updates a number field.
type paramUse struct{ known, writes, updates, fieldWrites, fieldUpdates, carried, view, viewReads bool }

// join adds w, the use found next, to u: known only when w is (the uses
// are classified while u is known).
func (u paramUse) join(w paramUse) paramUse {
	return paramUse{known: w.known, writes: u.writes || w.writes, updates: u.updates || w.updates,
		fieldWrites: u.fieldWrites || w.fieldWrites, fieldUpdates: u.fieldUpdates || w.fieldUpdates, carried: u.carried || w.carried,
		view: u.view || w.view, viewReads: u.viewReads || w.viewReads}
}

// paramUse returns fn's use of its parameter index (-1: the receiver).
func (f *foreign) paramUse(fn *types.Func, index int) paramUse {
	if f == nil || f.imp == nil || fn == nil || fn.Pkg() == nil {
		return paramUse{}
	}
	if u, ok := stdRecvUse(fn); ok && index == -1 {
		return u
	}
	if cacheOnlyParam(fn, index) {
		return paramUse{known: true}
	}
	if !pointerParam(fn.Origin(), index) {
		// A struct passed by value: the caller's analysis takes it for a
		// read, and would not trace what its slices refer to.
		return paramUse{}
	}
	return f.bodyUse(fn, index)
}

// readOnlyRecv are methods of the standard library that change nothing
// their receiver refers to that a region's merge must see: reading a file
// at an offset leaves its offset as it was (each node has its own
// descriptor), a reader's ReadAt and sizes only read.
var readOnlyRecv = map[string]bool{
	"(*os.File).ReadAt": true, "(*os.File).Stat": true, "(*os.File).Name": true, "(*os.File).Fd": true,
	"(*bytes.Reader).ReadAt": true, "(*bytes.Reader).Len": true, "(*bytes.Reader).Size": true,
	"(*strings.Reader).ReadAt": true, "(*strings.Reader).Len": true, "(*strings.Reader).Size": true,
}

// cacheOnlyTypes are the standard library's types whose methods and
// functions change, of a value handed to them, at most caches of its own
// that give every caller the same results (a regexp's pool of matchers, a
// location's zone cache, the CRC tables' lazy initialisation): a region
// may share one made before it, as it shares a number. The methods that
// do change one (regexp's Longest and UnmarshalText) are listed apart.
var cacheOnlyTypes = map[string]bool{"regexp.Regexp": true, "time.Location": true, "hash/crc32.Table": true, "hash/crc64.Table": true}

// cacheOnlyWrites are the methods of cacheOnlyTypes that change their
// receiver.
var cacheOnlyWrites = map[string]bool{"(*regexp.Regexp).Longest": true, "(*regexp.Regexp).UnmarshalText": true}

// cacheOnlyParam reports whether fn, of the standard library, only reads
// its parameter index (-1: the receiver) as cacheOnlyTypes says: a
// pointer to one of those types.
func cacheOnlyParam(fn *types.Func, index int) bool {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || cacheOnlyWrites[fn.FullName()] {
		return false
	}
	var pt types.Type
	switch {
	case index == -1 && sig.Recv() != nil:
		pt = sig.Recv().Type()
	case index >= 0 && index < sig.Params().Len():
		pt = sig.Params().At(index).Type()
	default:
		return false
	}
	ptr, ok := pt.(*types.Pointer)
	if !ok {
		return false
	}
	named, ok := ptr.Elem().(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return false
	}
	return cacheOnlyTypes[named.Obj().Pkg().Path()+"."+named.Obj().Name()]
}

// imageSetters are the methods of package image's pixel-buffer images
// that write a pixel of their receiver's Pix (and nothing else).
var imageSetters = map[string]bool{"Set": true, "SetGray": true, "SetGray16": true, "SetAlpha": true, "SetAlpha16": true,
	"SetRGBA": true, "SetRGBA64": true, "SetNRGBA": true, "SetNRGBA64": true, "SetCMYK": true, "SetColorIndex": true}

// imageReaders are the methods of those images that only read them.
var imageReaders = map[string]bool{"At": true, "Bounds": true, "ColorModel": true, "Opaque": true, "PixOffset": true,
	"GrayAt": true, "Gray16At": true, "AlphaAt": true, "Alpha16At": true, "RGBAAt": true, "RGBA64At": true,
	"NRGBAAt": true, "NRGBA64At": true, "CMYKAt": true, "ColorIndexAt": true}

// stdRecvUse returns the use fn, a method of the standard library, makes
// of its receiver where CAPE knows it without reading its source
// (readOnlyRecv, cacheOnlyTypes, the pixel methods of package image's
// images).
func stdRecvUse(fn *types.Func) (paramUse, bool) {
	if readOnlyRecv[fn.FullName()] || cacheOnlyParam(fn, -1) {
		return paramUse{known: true}, true
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil || imageType(sig.Recv().Type()) == "" {
		return paramUse{}, false
	}
	switch {
	case imageSetters[fn.Name()]:
		return paramUse{known: true, writes: true}, true
	case imageReaders[fn.Name()]:
		return paramUse{known: true}, true
	}
	return paramUse{}, false
}

// recvUse returns the use method m makes of its receiver, called on a
// parameter of another function of its package (useOfParam): a value
// receiver of a struct type is a copy of the parameter's value, whose
// slices are the parameter's, classified as a pointer receiver is (m.R
// read by func (m Matrix) Rows() int).
func (f *foreign) recvUse(m *types.Func) paramUse {
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return paramUse{}
	}
	if _, isStruct := sig.Recv().Type().Underlying().(*types.Struct); isStruct && f != nil && f.imp != nil && m.Pkg() != nil {
		return f.bodyUse(m, -1)
	}
	return f.paramUse(m, -1)
}

// knownRecv reports whether the source of fn, a method of another
// package, shows what it does with its receiver: its paramUse is known,
// or, a struct received by value (a copy whose slices are its caller's),
// its use is known and returns no view of it; the caller's analysis
// counts the writes through the copy's slices as writes through the
// caller's value (access: writesValueRecv).
func (f *foreign) knownRecv(fn *types.Func) bool {
	if f.paramUse(fn, -1).known {
		return true
	}
	if pointerRecv(fn) {
		return false
	}
	u := f.recvUse(fn)
	return u.known && !u.view
}

// callerRecvUse is the use fn, a method of another package, makes of the
// value its caller calls it on: paramUse's for a pointer receiver; for a
// struct received by value, recvUse's, less the writes of its number
// fields, which are the copy's.
func (f *foreign) callerRecvUse(fn *types.Func) paramUse {
	if pointerRecv(fn) {
		return f.paramUse(fn, -1)
	}
	u := f.recvUse(fn)
	u.fieldWrites, u.fieldUpdates = false, false
	return u
}

// bodyUse is paramUse's answer from fn's source, once per parameter.
func (f *foreign) bodyUse(fn *types.Func, index int) paramUse {
	fn = fn.Origin()
	key := fmt.Sprintf("%s#%d", fn.FullName(), index)
	if u, ok := f.uses[key]; ok {
		return u
	}
	if f.busy[key] {
		f.cycles++
		return paramUse{known: true} // what it finds, its first question has
	}
	fp := f.load(fn.Pkg().Path())
	if fp == nil || fp.decls[fn.FullName()] == nil {
		return paramUse{}
	}
	decl := fp.decls[fn.FullName()]
	f.busy[key] = true
	defer delete(f.busy, key)
	before := f.cycles
	pv := paramVar(fp.info, decl, index)
	u := paramUse{known: pv != nil || index == -1}
	if pv != nil {
		parents := fp.parents
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && u.known && fp.info.Uses[id] == pv {
				u = u.join(f.useOfParam(fp.info, parents, id))
			}
			return u.known
		})
		u.carried = u.carried || readsOthers(fp.info, parents, decl.Body, pv) || u.viewReads && u.writes
	}
	if f.cycles == before {
		f.uses[key] = u
	}
	return u
}

// pointerParam reports whether fn's parameter index (-1: the receiver)
// is a pointer or a slice of numbers.
func pointerParam(fn *types.Func, index int) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return false
	}
	var v *types.Var
	switch {
	case index == -1:
		v = sig.Recv()
	case index >= 0 && index < sig.Params().Len():
		v = sig.Params().At(index)
	}
	if v == nil {
		return false
	}
	switch u := v.Type().Underlying().(type) {
	case *types.Pointer:
		return true
	case *types.Slice:
		return numeric(u.Elem())
	}
	return false
}

// paramVar is decl's parameter index (-1: the receiver), or nil when it has
// no name (then it is not used) or there is no such parameter.
func paramVar(info *types.Info, decl *ast.FuncDecl, index int) *types.Var {
	var names []*ast.Ident
	if index == -1 {
		if decl.Recv == nil || len(decl.Recv.List) == 0 {
			return nil
		}
		names = decl.Recv.List[0].Names
		index = 0
	} else {
		for _, fld := range decl.Type.Params.List {
			if len(fld.Names) == 0 {
				names = append(names, nil)
			}
			names = append(names, fld.Names...)
		}
	}
	if index >= len(names) || names[index] == nil {
		return nil
	}
	v, _ := info.Defs[names[index]].(*types.Var)
	return v
}

// addParents adds each node under root to parents, mapped to its parent.
func addParents(parents map[ast.Node]ast.Node, root ast.Node) {
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if len(stack) > 0 {
			parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
}

// useOfParam classifies one use id of a parameter: compared, indexed (a
// slice), sliced or returned (a view of its elements), a field or method
// of it used, or handed to a function, as paramUse allows.
func (f *foreign) useOfParam(info *types.Info, parents map[ast.Node]ast.Node, id *ast.Ident) paramUse {
	switch p := parents[id].(type) {
	case *ast.BinaryExpr:
		return paramUse{known: true} // g == nil
	case *ast.IndexExpr, *ast.RangeStmt:
		if _, ok := info.TypeOf(id).Underlying().(*types.Slice); ok {
			return elemUse(fieldUse(info, parents, id, info.TypeOf(id)))
		}
	case *ast.SliceExpr, *ast.ReturnStmt:
		if numSlice(info.TypeOf(id)) {
			return f.viewOf(info, parents, id)
		}
	case *ast.StarExpr:
		// *p of a pointer to a number: the element it points to.
		if numeric(info.TypeOf(p)) {
			return elemUse(placeUse(parents, p))
		}
	case *ast.CallExpr:
		return f.handedTo(info, parents, p, id)
	case *ast.SelectorExpr:
		sel := info.Selections[p]
		if p.X != id || sel == nil || !inlinePath(info.TypeOf(id), sel) {
			return paramUse{}
		}
		return f.selectedUse(info, parents, p, sel)
	}
	return paramUse{}
}

// selectedUse classifies the use of p, a method or field selected from a
// parameter: a method called (its use of its receiver, and of the
// result when that is a view), or a field used as fieldUse says (a slice
// of numbers also sliced or returned, a view).
func (f *foreign) selectedUse(info *types.Info, parents map[ast.Node]ast.Node, p *ast.SelectorExpr, sel *types.Selection) paramUse {
	switch sel.Kind() {
	case types.MethodVal:
		call, ok := parents[p].(*ast.CallExpr)
		m, _ := sel.Obj().(*types.Func)
		if !ok || call.Fun != p || m == nil {
			return paramUse{}
		}
		return f.resultUse(info, parents, call, f.recvUse(m))
	case types.FieldVal:
		if numeric(sel.Type()) {
			k := fieldUse(info, parents, p, sel.Type())
			return paramUse{known: k != placeUnknown, writes: k >= placeAssigned, fieldWrites: k >= placeAssigned, fieldUpdates: k == placeUpdated}
		}
		switch parents[p].(type) {
		case *ast.SliceExpr, *ast.ReturnStmt:
			if numSlice(sel.Type()) {
				return f.viewOf(info, parents, p)
			}
		}
		return elemUse(fieldUse(info, parents, p, sel.Type()))
	}
	return paramUse{}
}

// inlinePath reports whether the field or method sel, selected from a
// value of type recv, is one of its own or promoted through embedded
// struct fields held in place (m.C of a Matrix embedding Shape), not
// through an embedded pointer: what it reaches is then part of the
// memory the parameter refers to.
func inlinePath(recv types.Type, sel *types.Selection) bool {
	path := sel.Index()
	typ := recv
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	for _, i := range path[:len(path)-1] {
		st, ok := typ.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return false
		}
		typ = st.Field(i).Type()
		if _, inPlace := typ.Underlying().(*types.Struct); !inPlace {
			return false
		}
	}
	return true
}

// resultUse adds to u, a callee's use of a parameter's value handed to it
// in call, the caller's use of call's result when the callee returns a
// view of that value's elements.
func (f *foreign) resultUse(info *types.Info, parents map[ast.Node]ast.Node, call *ast.CallExpr, u paramUse) paramUse {
	if !u.known || !u.view {
		return u
	}
	u.view = false
	return u.join(f.viewUse(info, parents, call))
}

// viewOf classifies e, a parameter's slice of numbers or such a field of
// it, sliced (e[a:b]) or returned: a view of the elements it refers to.
func (f *foreign) viewOf(info *types.Info, parents map[ast.Node]ast.Node, e ast.Expr) paramUse {
	switch p := parents[e].(type) {
	case *ast.SliceExpr:
		if p.X == e {
			return f.viewUse(info, parents, p)
		}
	case *ast.ReturnStmt:
		if !returnsFromLit(parents, p) {
			return paramUse{known: true, view: true}
		}
	}
	return paramUse{}
}

// viewUse classifies the use of e, a slice of elements a parameter refers
// to (a view): its elements read (indexed, ranged over, copied from,
// handed to a function that only reads them), sliced again, or returned.
// Writes through a view are not followed (unknown).
func (f *foreign) viewUse(info *types.Info, parents map[ast.Node]ast.Node, e ast.Expr) paramUse {
	read := paramUse{known: true, viewReads: true}
	switch p := parents[e].(type) {
	case *ast.ParenExpr:
		return f.viewUse(info, parents, p)
	case *ast.IndexExpr:
		if p.X == e && placeUse(parents, p) == placeRead {
			return read
		}
	case *ast.RangeStmt:
		if p.X == e {
			return read
		}
	case *ast.SliceExpr, *ast.ReturnStmt:
		return f.viewOf(info, parents, e)
	case *ast.CallExpr:
		if b, ok := info.Uses[identOf(p.Fun)].(*types.Builtin); ok {
			switch {
			case b.Name() == "len" || b.Name() == "cap":
				return paramUse{known: true}
			case b.Name() == "copy" && len(p.Args) == 2 && p.Args[1] == e:
				return read
			}
			return paramUse{}
		}
		u := f.handedTo(info, parents, p, e)
		if !u.known || u.writes {
			return paramUse{}
		}
		return read.join(u)
	}
	return paramUse{}
}

// returnsFromLit reports whether n stands in a function literal (a return
// there returns from the literal).
func returnsFromLit(parents map[ast.Node]ast.Node, n ast.Node) bool {
	for p := parents[n]; p != nil; p = parents[p] {
		switch p.(type) {
		case *ast.FuncLit:
			return true
		case *ast.FuncDecl:
			return false
		}
	}
	return false
}

// elemUse is the paramUse of a use of elements of what a parameter refers
// to.
func elemUse(k placeKind) paramUse {
	return paramUse{known: k != placeUnknown, writes: k >= placeAssigned, updates: k == placeUpdated}
}

// handedTo classifies e, a parameter or a view of its elements, handed to
// call: len or cap read it; a function of a package with source uses it
// as its own paramUse says (and, returning a view of it, as its caller
// uses the result).
func (f *foreign) handedTo(info *types.Info, parents map[ast.Node]ast.Node, call *ast.CallExpr, e ast.Expr) paramUse {
	var callee *types.Func
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if b, ok := info.Uses[fun].(*types.Builtin); ok {
			return paramUse{known: b.Name() == "len" || b.Name() == "cap"}
		}
		callee, _ = info.Uses[fun].(*types.Func)
	case *ast.SelectorExpr:
		if sel := info.Selections[fun]; sel == nil || sel.Kind() == types.MethodVal && !types.IsInterface(sel.Recv()) {
			callee, _ = info.Uses[fun.Sel].(*types.Func)
		}
	}
	sig, _ := info.TypeOf(call.Fun).(*types.Signature)
	if callee == nil || sig == nil {
		return paramUse{}
	}
	for i, a := range call.Args {
		if ast.Unparen(a) == e {
			return f.resultUse(info, parents, call, f.paramUse(callee, paramIndex(sig, i)))
		}
	}
	return paramUse{}
}

// numeric reports whether typ is a basic type, or a type parameter whose
// every type is a number or a boolean ([T ~float64 | ~int]: plainParam).
func numeric(typ types.Type) bool {
	switch u := typ.(type) {
	case *types.TypeParam:
		return plainParam(u)
	case nil:
		return false
	}
	_, basic := typ.Underlying().(*types.Basic)
	return basic
}

// numSlice reports whether typ is a slice of numbers.
func numSlice(typ types.Type) bool {
	s, ok := typ.Underlying().(*types.Slice)
	return ok && numeric(s.Elem())
}

// fieldUse classifies the use of the field fe (of type typ) of a
// parameter: a number field read, assigned or updated, or a slice or array
// of numbers read, ranged over, or its elements assigned or updated.
func fieldUse(info *types.Info, parents map[ast.Node]ast.Node, fe ast.Expr, typ types.Type) placeKind {
	if numeric(typ) {
		return placeUse(parents, fe)
	}
	switch u := typ.Underlying().(type) {
	case *types.Slice, *types.Array:
		elem := u.(interface{ Elem() types.Type }).Elem()
		if !numeric(elem) && !numStruct(elem) {
			return placeUnknown
		}
		switch g := parents[fe].(type) {
		case *ast.IndexExpr:
			if g.X != fe {
				return placeRead // used as an index
			}
			return elemPlace(info, parents, g)
		case *ast.CallExpr:
			if id, ok := ast.Unparen(g.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
					return placeRead
				}
			}
		case *ast.RangeStmt:
			if g.X == fe {
				return placeRead
			}
		}
	}
	return placeUnknown
}

// numStruct reports whether typ is a struct that holds numbers only, in
// place (type Vec3 struct{ X, Y, Z float64 }): a copy of one shares no
// memory with it.
func numStruct(typ types.Type) bool {
	_, ok := typ.Underlying().(*types.Struct)
	return ok && pointerFree(typ)
}

// elemPlace classifies the use of ix, an element of a slice or array of
// numbers or of numStructs, as placeUse does, through the fields selected
// from it (p[i].X = v assigns); a method called on it reads it when its
// receiver is a copy (a value receiver), and is not known when it is a
// pointer (p[i].Normalize() may write it).
func elemPlace(info *types.Info, parents map[ast.Node]ast.Node, ix ast.Expr) placeKind {
	e := ix
	for {
		p, ok := parents[e].(*ast.SelectorExpr)
		if !ok || p.X != e {
			return placeUse(parents, e)
		}
		sel := info.Selections[p]
		switch {
		case sel == nil:
			return placeUnknown
		case sel.Kind() == types.FieldVal:
			e = p
		case sel.Kind() == types.MethodVal && !pointerRecv(sel.Obj().(*types.Func)) && pointerFree(info.TypeOf(e)):
			return placeRead
		default:
			return placeUnknown
		}
	}
}

// A placeKind is how code uses a place: unknown, read, assigned, or
// updated (x op= v, x++).
type placeKind int

const (
	placeUnknown placeKind = iota
	placeRead
	placeAssigned
	placeUpdated
)

// placeUse classifies the use of e, a place holding a number: read,
// assigned or updated; its address taken is not known.
func placeUse(parents map[ast.Node]ast.Node, e ast.Expr) placeKind {
	switch g := parents[e].(type) {
	case *ast.AssignStmt:
		for i, l := range g.Lhs {
			if l != e {
				continue
			}
			if g.Tok != token.ASSIGN && g.Tok != token.DEFINE || len(g.Rhs) == len(g.Lhs) && mentionsPlace(g.Rhs[i], e) {
				return placeUpdated // x op= v, or x = x + v
			}
			return placeAssigned
		}
	case *ast.IncDecStmt:
		return placeUpdated
	case *ast.UnaryExpr:
		if g.Op == token.AND {
			return placeUnknown
		}
	case *ast.RangeStmt:
		if g.Key == e || g.Value == e {
			return placeUnknown
		}
	}
	return placeRead
}

// fieldStore returns where code of fld's package that the program may run
// stores a value into a field of fld's name and type (a composite
// literal, an assignment, its address taken), or NoPos; ok is false when
// this cannot be told: no source, or another package outside the
// standard library imports fld's package (and may store into it too).
// mainFuncs are the functions of that package the main package names.
// An assignment of another field of the package's structs to it (g.Cur,
// g.Next = g.Next, g.Cur) is no such store: copies lists those fields,
// whose values it can only hold, as the package being translated sees
// them.
func (f *foreign) fieldStore(fld *types.Var, mainFuncs []*types.Func) (at token.Pos, copies []*types.Var, ok bool) {
	if f == nil || f.imp == nil || fld.Pkg() == nil {
		return token.NoPos, nil, false
	}
	path := fld.Pkg().Path()
	fp := f.load(path)
	if fp == nil || f.importedElsewhere(path) {
		return token.NoPos, nil, false
	}
	same := func(v *types.Var) bool {
		return v != nil && v.Name() == fld.Name() && types.TypeString(v.Type(), nil) == types.TypeString(fld.Type(), nil)
	}
	found := token.NoPos
	for _, body := range fp.reachable(mainFuncs) {
		ast.Inspect(body, func(n ast.Node) bool {
			if found != token.NoPos {
				return false
			}
			switch x := n.(type) {
			case *ast.SelectorExpr:
				sel := fp.info.Selections[x]
				if sel != nil && sel.Kind() == types.FieldVal && same(sel.Obj().(*types.Var)) && storedInto(fp.parents, x) {
					if src := fieldCopied(fp, x, fld); src != nil {
						copies = append(copies, src)
					} else {
						found = x.Pos()
					}
				}
			case *ast.CompositeLit:
				st, _ := fp.info.TypeOf(x).Underlying().(*types.Struct)
				for i, e := range x.Elts {
					var v *types.Var
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						v, _ = fp.info.ObjectOf(identOf(kv.Key)).(*types.Var)
					} else if st != nil && i < st.NumFields() {
						v = st.Field(i)
					}
					if st != nil && same(v) && found == token.NoPos {
						found = e.Pos()
					}
				}
			}
			return true
		})
	}
	return found, copies, true
}

// fieldCopied returns the field, of a struct of fld's package, whose value
// the assignment to x (in fp's code, a field of fld's name and type) gives
// it (g.Cur = g.Next), as the package being translated sees it; nil for
// any other store.
func fieldCopied(fp *foreignPkg, x *ast.SelectorExpr, fld *types.Var) *types.Var {
	var e ast.Node = x
	for {
		if p, ok := fp.parents[e].(*ast.ParenExpr); ok {
			e = p
			continue
		}
		break
	}
	as, ok := fp.parents[e].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != len(as.Rhs) {
		return nil
	}
	i := slices.IndexFunc(as.Lhs, func(l ast.Expr) bool { return l == e })
	rhs, ok := ast.Unparen(as.Rhs[max(i, 0)]).(*ast.SelectorExpr)
	if i < 0 || !ok {
		return nil
	}
	sel := fp.info.Selections[rhs]
	if sel == nil || sel.Kind() != types.FieldVal || types.TypeString(sel.Type(), nil) != types.TypeString(fld.Type(), nil) {
		return nil
	}
	return mainField(fld.Pkg(), sel)
}

// mainField returns the field that sel, a selection in code of pkg read
// from its source, selects, as the package being translated sees pkg
// (from export data, other objects), or nil: the field is found by the
// name of the struct type it is selected from, and its index path.
func mainField(pkg *types.Package, sel *types.Selection) *types.Var {
	typ := sel.Recv()
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	n, ok := typ.(*types.Named)
	if !ok || n.TypeArgs().Len() > 0 || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != pkg.Path() {
		return nil
	}
	tn, _ := pkg.Scope().Lookup(n.Obj().Name()).(*types.TypeName)
	if tn == nil {
		return nil
	}
	var v *types.Var
	t := tn.Type()
	for _, i := range sel.Index() {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil
		}
		v = st.Field(i)
		t = v.Type()
	}
	return v
}

// storedInto reports whether the selector x is assigned or has its
// address taken.
func storedInto(parents map[ast.Node]ast.Node, x *ast.SelectorExpr) bool {
	e := ast.Node(x)
	for {
		switch p := parents[e].(type) {
		case *ast.ParenExpr:
			e = p
			continue
		case *ast.AssignStmt:
			return slices.ContainsFunc(p.Lhs, func(l ast.Expr) bool { return l == e })
		case *ast.UnaryExpr:
			return p.Op == token.AND
		}
		return false
	}
}

// importedElsewhere reports whether a package outside the standard library
// other than path imports path. Each package's imports are read once.
func (f *foreign) importedElsewhere(path string) bool {
	lister, ok := f.imp.(interface{ Packages() []string })
	if !ok {
		return true
	}
	for _, q := range lister.Packages() {
		imports, ok := f.importsOf(q)
		if !ok || q != path && slices.Contains(imports, path) {
			return true
		}
	}
	return false
}

// importsOf returns the import paths of the package q's files, parsed once;
// false if one does not parse.
func (f *foreign) importsOf(q string) ([]string, bool) {
	if imports, ok := f.imports[q]; ok {
		return imports, imports != nil
	}
	imports := []string{}
	files, _ := f.imp.Sources(q)
	for _, name := range files {
		af, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			imports = nil
			break
		}
		for _, s := range af.Imports {
			imports = append(imports, strings.Trim(s.Path.Value, `"`))
		}
	}
	f.imports[q] = imports
	return imports, imports != nil
}

// reachable returns the bodies of fp's code that may run when the main
// package calls roots: every method, the functions they call or name,
// the function literals in them, and the package's variable
// initialisers and init functions.
func (fp *foreignPkg) reachable(roots []*types.Func) []ast.Node {
	var out []ast.Node
	seen := map[string]bool{}
	var queue []string
	add := func(fn *types.Func) {
		if k := fn.Origin().FullName(); !seen[k] {
			seen[k] = true
			queue = append(queue, k)
		}
	}
	for _, r := range roots {
		add(r)
	}
	for _, d := range fp.decls {
		// Any method may be called through an interface (fmt calls
		// String), by the main package or another.
		if fn, ok := fp.info.Defs[d.Name].(*types.Func); ok && d.Recv != nil {
			add(fn)
		}
	}
	for _, n := range fp.inits {
		out = append(out, n)
		fp.callsIn(n, add)
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if d := fp.decls[k]; d != nil {
			out = append(out, d)
			fp.callsIn(d, add)
		}
	}
	return out
}

// callsIn passes add every function of fp that n names, and for a method
// called through an interface, every method of that name of fp.
func (fp *foreignPkg) callsIn(n ast.Node, add func(*types.Func)) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if fn, ok := fp.info.Uses[x].(*types.Func); ok {
				add(fn)
			}
		case *ast.SelectorExpr:
			if sel := fp.info.Selections[x]; sel != nil && sel.Kind() == types.MethodVal && types.IsInterface(sel.Recv()) {
				fp.methodsNamed(x.Sel.Name, add)
			}
		}
		return true
	})
}

// methodsNamed passes add every method of fp named name.
func (fp *foreignPkg) methodsNamed(name string, add func(*types.Func)) {
	for _, d := range fp.decls {
		if d.Recv != nil && d.Name.Name == name {
			if fn, ok := fp.info.Defs[d.Name].(*types.Func); ok {
				add(fn)
			}
		}
	}
}

// funcsOf returns the functions and methods of pkg that this package names.
func (t *translator) funcsOf(pkg *types.Package) []*types.Func {
	var out []*types.Func
	for _, obj := range t.info.Uses {
		if fn, ok := obj.(*types.Func); ok && fn.Pkg() == pkg {
			out = append(out, fn)
		}
	}
	return out
}

// handedUses applies, to the arguments of call in r's loop (and, in code
// the loop calls, callee, to its receiver too), what the source of the
// other package's function says it does with them (handedUse).
func (t *translator) handedUses(r *region, call *ast.CallExpr, callee bool, errorf func(token.Pos, string, ...any)) {
	fn, recv := t.externalCallee(call)
	sig, _ := t.info.TypeOf(call.Fun).(*types.Signature)
	if fn == nil || sig == nil || r.dir.kind != dirFor {
		return
	}
	name := fn.Pkg().Name() + "." + funcName(fn)
	if recv != nil && (callee || !pointerRecv(fn)) {
		// (a pointer receiver in the loop body is invariantMethod's)
		t.handedUse(r, name, t.foreign.callerRecvUse(fn), recv, callee, errorf)
	}
	for i, a := range call.Args {
		t.handedUse(r, name, t.foreign.paramUse(fn, paramIndex(sig, i)), a, callee, errorf)
	}
}

// pointerRecv reports whether fn is a method with a pointer receiver.
func pointerRecv(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	_, ptr := sig.Recv().Type().Underlying().(*types.Pointer)
	return ptr
}

// handedUse applies u, what a function of another package (what) does
// with e, its receiver or an argument, in r's loop body or (callee) in
// code the loop calls, unless e is the iteration's own: a read of elements
// other iterations may write is refused; element updates mark the region
// (r.updates), for the merge to stop the job where two nodes updated the
// same one (a[i:] or &cells[i] may reach others': a[i+1], a slice the
// cells share); an update of a number field of a shared struct is refused,
// or, in code the loop calls, where its argument comes from is not known,
// marks the region too.
func (t *translator) handedUse(r *region, what string, u paramUse, e ast.Expr, callee bool, errorf func(token.Pos, string, ...any)) {
	if !u.known || !callee && t.regionLocal(r, e) {
		return
	}
	if u.carried {
		errorf(e.Pos(), "%s", carriedMessage(what, t.text(e)))
		return
	}
	// A number field updated through a receiver or pointer that may be
	// one element for several iterations (accs[i%3].Add(1)) is checked
	// by the merge, as an element's update is.
	r.updates = r.updates || u.updates || u.fieldUpdates && (callee || !t.distinctPlace(r, stripAddr(e)))
	if u.fieldUpdates && !callee && !t.iterationPlace(r, e) {
		errorf(e.Pos(), "%s updates a number field of %s in every iteration of the parallel loop (a loop-carried dependence): each node would update its own copy, and the updates would not add up; use a reduction clause, or have each iteration update its own element",
			what, t.text(e))
	}
}

// standard reports whether the package at path is in the standard
// library: one the importer has no source of, or, without a
// SourceImporter, one whose path's first element has no dot.
func (f *foreign) standard(path string) bool {
	if f != nil && f.imp != nil {
		_, ok := f.imp.Sources(path)
		return !ok
	}
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// mayWrite reports whether method m, with a pointer receiver, may change
// what its receiver refers to: unless its source shows it only reads it
// (and returns no view of it, which its caller may write through).
func (f *foreign) mayWrite(m *types.Func) bool {
	u := f.paramUse(m, -1)
	return !u.known || u.writes || u.view // its caller may write through the view
}

// mayWriteArg reports whether fn may write through its parameter index:
// unless its source shows it only reads it (returning no view of it), or
// it is a function of a standard package that only reads its arguments.
func (f *foreign) mayWriteArg(fn *types.Func, index int) bool {
	if fn.Pkg() != nil && readOnlyArgs[fn.Pkg().Path()] {
		return false
	}
	u := f.paramUse(fn, index)
	return !u.known || u.writes || u.view // its caller may write through the view
}

// change says what sw changes: "changes kern.total, a package variable",
// or what CAPE cannot tell the place of.
func (sw *stateWrite) change() string {
	if sw.v == nil && sw.process {
		return sw.what
	}
	if sw.v == nil {
		return sw.what + ", which may change that package's variables"
	}
	return "changes " + sw.v.Pkg().Name() + "." + sw.v.Name() + ", a package variable"
}

// mentionsPlace reports whether e contains an expression spelled as place
// (h.Bins[b] in h.Bins[b] + 1).
func mentionsPlace(e, place ast.Expr) bool {
	want := types.ExprString(place)
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && !found && types.ExprString(x) == want {
			found = true
		}
		return !found
	})
	return found
}

// readsOthers reports whether body writes elements of pv (a slice) or of
// one of pv's slice or array fields, and reads elements of the same at an
// index spelled differently from every index it writes.
func readsOthers(info *types.Info, parents map[ast.Node]ast.Node, body ast.Node, pv *types.Var) bool {
	writes, reads := map[string][]string{}, map[string][]string{}
	ast.Inspect(body, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		what := ""
		switch x := ast.Unparen(ix.X).(type) {
		case *ast.Ident:
			if info.Uses[x] != pv {
				return true
			}
		case *ast.SelectorExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); !ok || info.Uses[id] != pv {
				return true
			}
			what = x.Sel.Name
		default:
			return true
		}
		at := types.ExprString(ix.Index)
		if elemPlace(info, parents, ix) != placeRead {
			writes[what] = append(writes[what], at)
		} else {
			reads[what] = append(reads[what], at)
		}
		return true
	})
	for what, ws := range writes {
		for _, r := range reads[what] {
			if !slices.Contains(ws, r) {
				return true
			}
		}
	}
	return false
}

// regionLocal reports whether e is rooted at a variable declared in r.
func (t *translator) regionLocal(r *region, e ast.Expr) bool {
	v := t.rootVar(e)
	return v != nil && within(v.Pos(), r.stmt)
}

// carriedMessage is the refusal of a call (what) of another package's
// function that reads elements of what arg refers to at places it does
// not write.
func carriedMessage(what, arg string) string {
	return what + " reads elements of what " + arg + " refers to at places it does not write, which other iterations may write (a loop-carried dependence): " +
		"each node would read the values at the region's entry, not those go run's earlier iterations wrote; write the results into another slice"
}

// getterReads returns, for fn, a method of another package whose body is
// one return of an expression that reads only fields of its receiver
// (directly, or promoted through embedded structs held in place),
// constants, and what len, cap, min, max and conversions make of them
// (func (m *Matrix) Cols() int { return m.C }), the index paths of the
// fields it reads; false for any other function. Called in a loop's
// bound, it gives the same value at every iteration while those fields
// stay unchanged, as a getter of the program's own does (getterExpr).
func (f *foreign) getterReads(fn *types.Func) ([][]int, bool) {
	if f == nil || f.imp == nil || fn == nil || fn.Pkg() == nil {
		return nil, false
	}
	fn = fn.Origin()
	fp := f.load(fn.Pkg().Path())
	if fp == nil || fp.decls[fn.FullName()] == nil {
		return nil, false
	}
	decl := fp.decls[fn.FullName()]
	recv := paramVar(fp.info, decl, -1)
	if recv == nil || len(decl.Body.List) != 1 {
		return nil, false
	}
	ret, ok := decl.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil, false
	}
	paths := [][]int{}
	ok = true
	ast.Inspect(ret.Results[0], func(n ast.Node) bool {
		if !ok || n == nil {
			return false
		}
		if e, isExpr := n.(ast.Expr); isExpr && fp.info.Types[e].Value != nil {
			return false // a constant
		}
		switch x := n.(type) {
		case *ast.SelectorExpr:
			sel := fp.info.Selections[x]
			id, _ := ast.Unparen(x.X).(*ast.Ident)
			ok = sel != nil && sel.Kind() == types.FieldVal && id != nil && fp.info.Uses[id] == recv && inlinePath(recv.Type(), sel)
			if ok {
				paths = append(paths, sel.Index())
			}
			return false
		case *ast.CallExpr:
			ok = pureBuiltinCall(fp.info, x)
		case *ast.Ident:
			switch fp.info.Uses[x].(type) {
			case *types.Builtin, *types.TypeName:
			default:
				ok = false
			}
		case *ast.UnaryExpr:
			ok = x.Op != token.AND && x.Op != token.ARROW
		case *ast.BinaryExpr, *ast.ParenExpr, *ast.BasicLit:
		default:
			ok = false
		}
		return ok
	})
	return paths, ok
}

// pureBuiltinCall reports whether call is a conversion or a call of len,
// cap, min or max.
func pureBuiltinCall(info *types.Info, call *ast.CallExpr) bool {
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	b, ok := info.Uses[identOf(call.Fun)].(*types.Builtin)
	return ok && (b.Name() == "len" || b.Name() == "cap" || b.Name() == "min" || b.Name() == "max")
}

// returnedField reports, for fn, a function or method of another package
// whose body is one return of a slice field of its receiver or of one of
// its parameters (func (g *G) Vs() []int { return g.Vals }), which
// parameter (-1: the receiver) and the index path of that field: the
// result is the field's value. (A slice of the field, a row, is not: the
// loop's flow analysis could not tell its elements apart.)
func (f *foreign) returnedField(fn *types.Func) (index int, path []int, ok bool) {
	if f == nil || f.imp == nil || fn == nil || fn.Pkg() == nil {
		return 0, nil, false
	}
	fn = fn.Origin()
	fp := f.load(fn.Pkg().Path())
	if fp == nil || fp.decls[fn.FullName()] == nil {
		return 0, nil, false
	}
	decl := fp.decls[fn.FullName()]
	if len(decl.Body.List) != 1 {
		return 0, nil, false
	}
	ret, isRet := decl.Body.List[0].(*ast.ReturnStmt)
	if !isRet || len(ret.Results) != 1 {
		return 0, nil, false
	}
	sel, _ := ast.Unparen(ret.Results[0]).(*ast.SelectorExpr)
	if sel == nil || fp.info.Selections[sel] == nil || fp.info.Selections[sel].Kind() != types.FieldVal {
		return 0, nil, false
	}
	id, _ := ast.Unparen(sel.X).(*ast.Ident)
	if id == nil || !numSlice(fp.info.TypeOf(sel)) {
		return 0, nil, false
	}
	s := fp.info.Selections[sel]
	for i := -1; ; i++ {
		pv := paramVar(fp.info, decl, i)
		if pv == nil && i >= 0 {
			return 0, nil, false
		}
		if pv != nil && fp.info.Uses[id] == pv && inlinePath(pv.Type(), s) {
			return i, s.Index(), true
		}
	}
}
