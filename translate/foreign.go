package translate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
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
// variable: v, at pos, in fn (the called function or one it calls).
type stateWrite struct {
	v   *types.Var
	pos token.Pos
	fn  *types.Func
}

// foreign holds the other packages' source the translator has read, and
// its answers.
type foreign struct {
	imp  SourceImporter // nil: no sources, no checks
	fset *token.FileSet
	pkgs map[string]*foreignPkg // by import path; nil: no source, or it did not type-check
	memo map[string]*stateWrite // by the function's full name
	busy map[string]bool        // the functions being followed (recursion)
}

// foreignPkg is one other package, type-checked from its source.
type foreignPkg struct {
	info  *types.Info
	decls map[string]*ast.FuncDecl // by full name
}

func newForeign(imp types.Importer, fset *token.FileSet) *foreign {
	si, _ := imp.(SourceImporter)
	return &foreign{imp: si, fset: fset, pkgs: map[string]*foreignPkg{}, memo: map[string]*stateWrite{}, busy: map[string]bool{}}
}

// load reads and type-checks the package at path, once.
func (f *foreign) load(path string) *foreignPkg {
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
	fp := &foreignPkg{info: info, decls: map[string]*ast.FuncDecl{}}
	for _, af := range asts {
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
					fp.decls[fn.FullName()] = fd
				}
			}
		}
	}
	f.pkgs[path] = fp
	return fp
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
	if sw, ok := f.memo[key]; ok || f.busy[key] {
		return sw
	}
	fp := f.load(fn.Pkg().Path())
	if fp == nil || fp.decls[key] == nil {
		return nil
	}
	f.busy[key] = true
	sw := f.walk(fp, fp.decls[key])
	delete(f.busy, key)
	f.memo[key] = sw
	return sw
}

// walk looks through decl's body (function literals included) for a
// change of a package variable: an assignment, ++ or --, & of it or of
// a part of it, delete, clear or copy into it, a pointer method called
// on it, or the same through a local variable given it (a slice, map or
// pointer); or a call of a function that makes one.
func (f *foreign) walk(fp *foreignPkg, decl *ast.FuncDecl) *stateWrite {
	info := fp.info
	fn, _ := info.Defs[decl.Name].(*types.Func)
	alias := map[*types.Var]*types.Var{} // local → the package variable it refers into
	root := func(e ast.Expr) *types.Var {
		v := rootVar(info, e)
		if v == nil {
			return nil
		}
		if a := alias[v]; a != nil {
			return a
		}
		if isPackageVar(v) {
			return v
		}
		return nil
	}
	var found *stateWrite
	hit := func(e ast.Expr) {
		if v := root(e); v != nil && found == nil {
			found = &stateWrite{v: v, pos: e.Pos(), fn: fn}
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if x.Tok != token.DEFINE {
					hit(l)
				}
				if len(x.Lhs) == len(x.Rhs) {
					f.noteAlias(info, alias, l, x.Rhs[i], root)
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if e != nil {
						hit(e)
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range x.Names {
				if i < len(x.Values) {
					f.noteAlias(info, alias, name, x.Values[i], root)
				}
			}
		case *ast.IncDecStmt:
			hit(x.X)
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				hit(x.X)
			}
		case *ast.CallExpr:
			if onceDo(info, x) {
				return false // a lazy initialisation: every node makes its own
			}
			if sw := f.callWrite(info, x, hit); sw != nil && found == nil {
				found = sw
			}
		}
		return found == nil
	})
	return found
}

// noteAlias records that the local variable lhs refers into the package
// variable that rhs is rooted at, when its type lets it write there (a
// slice, map, pointer or channel).
func (f *foreign) noteAlias(info *types.Info, alias map[*types.Var]*types.Var, lhs, rhs ast.Expr, root func(ast.Expr) *types.Var) {
	id, ok := ast.Unparen(lhs).(*ast.Ident)
	if !ok {
		return
	}
	v, _ := info.ObjectOf(id).(*types.Var)
	if v == nil || isPackageVar(v) || !refersInto(v.Type()) {
		return
	}
	if src := root(rhs); src != nil {
		alias[v] = src
	}
}

// callWrite looks at one call: a builtin that changes its first argument,
// a pointer method called on a package variable, or a function whose
// own walk finds a change. hit records a change rooted at an expression.
func (f *foreign) callWrite(info *types.Info, call *ast.CallExpr, hit func(ast.Expr)) *stateWrite {
	fun := ast.Unparen(call.Fun)
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok {
			if len(call.Args) > 0 && slices.Contains([]string{"delete", "clear", "copy"}, b.Name()) {
				hit(call.Args[0])
			}
			return nil
		}
	}
	var callee *types.Func
	switch x := fun.(type) {
	case *ast.Ident:
		callee, _ = info.Uses[x].(*types.Func)
	case *ast.SelectorExpr:
		if sel := info.Selections[x]; sel != nil {
			if sel.Kind() != types.MethodVal || types.IsInterface(sel.Recv()) {
				return nil
			}
			callee, _ = sel.Obj().(*types.Func)
			if balanced(callee) {
				return nil
			}
			if sig, ok := callee.Type().(*types.Signature); ok && sig.Recv() != nil {
				if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
					hit(x.X)
				}
			}
		} else {
			callee, _ = info.Uses[x.Sel].(*types.Func)
		}
	case *ast.IndexExpr: // an instantiated generic function
		if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
			callee, _ = info.Uses[id].(*types.Func)
		}
	}
	if callee == nil {
		return nil
	}
	return f.stateWrite(callee)
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

// refersInto reports whether a value of type typ may refer to memory
// another value shares: a slice, map, pointer or channel.
func refersInto(typ types.Type) bool {
	switch typ.Underlying().(type) {
	case *types.Slice, *types.Map, *types.Pointer, *types.Chan:
		return true
	}
	return false
}

// onceDo reports whether call is a sync.Once's Do: what it runs once
// initialises the package on every node alike.
func onceDo(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, _ := info.Uses[sel.Sel].(*types.Func)
	return fn != nil && fn.FullName() == "(*sync.Once).Do"
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
