package gocmd

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A module declaring a go version before 1.22 is built with the language
// version the runtime needs, under which each iteration of a loop has
// its own loop variable; under the module's own version the iterations
// share one. A program sees the difference only where a loop variable
// outlives its iteration: captured by a function literal that is not
// called at once, or its address taken. loopvarCaptures finds those, so
// that such a program is refused rather than run with another meaning.

// loopvarCaptures returns the places, as file:line:col, in the module's
// Go files below root (tests, testdata and vendor left out), where a
// loop's variable is captured by a function literal not called where it
// stands, or has its address taken, in the loop's body; at most max.
func loopvarCaptures(root string, max int) ([]string, error) {
	paths, err := moduleFiles(root, func(p string) bool { return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") })
	if err != nil {
		return nil, err
	}
	var dirs []string
	files := map[string][]string{} // a package's files, by directory
	for _, p := range paths {
		dir := filepath.Dir(p)
		if files[dir] == nil {
			dirs = append(dirs, dir)
		}
		files[dir] = append(files[dir], p)
	}
	fset := token.NewFileSet()
	var found []string
	for _, dir := range dirs {
		var parsed []*ast.File
		for _, p := range files[dir] {
			if f, err := parser.ParseFile(fset, p, nil, 0); err == nil { // with the parser's resolution of names to declarations
				parsed = append(parsed, f)
			} // else the build reports it
		}
		funcs := packageFuncs(parsed)
		for _, f := range parsed {
			for _, pos := range capturesIn(f, funcs) {
				if len(found) < max {
					found = append(found, fset.Position(pos).String())
				}
			}
		}
	}
	return found, nil
}

// A ptrMethod is what a package's methods of one name with a pointer
// receiver do with it: called on an addressable variable, they get its
// address, which outlives the call where the method keeps it (returns
// it, stores it, hands it on).
type ptrMethod struct{ keeps bool }

// pkgFuncs is what a package's functions and methods do with the
// addresses they are given, by name (a loop variable's type is not known
// here, so any method of the name counts).
type pkgFuncs struct {
	methods map[string]ptrMethod // those with a pointer receiver
	kept    map[string][]bool    // a function's parameters that it keeps
}

// packageFuncs reads files (one package's) for pkgFuncs.
func packageFuncs(files []*ast.File) pkgFuncs {
	pf := pkgFuncs{methods: map[string]ptrMethod{}, kept: map[string][]bool{}}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fd.Recv == nil {
				var kept []bool
				for _, field := range fd.Type.Params.List {
					for _, n := range field.Names {
						kept = append(kept, n.Obj == nil || receiverKept(fd.Body, n.Obj))
					}
					if len(field.Names) == 0 {
						kept = append(kept, false)
					}
				}
				pf.kept[fd.Name.Name] = kept
				continue
			}
			if len(fd.Recv.List) != 1 {
				continue
			}
			if _, ptr := fd.Recv.List[0].Type.(*ast.StarExpr); !ptr {
				continue
			}
			m := pf.methods[fd.Name.Name]
			if names := fd.Recv.List[0].Names; len(names) == 1 && names[0].Obj != nil {
				m.keeps = m.keeps || receiverKept(fd.Body, names[0].Obj)
			}
			pf.methods[fd.Name.Name] = m
		}
	}
	return pf
}

// receiverKept reports whether body uses the receiver recv other than to
// select a field or call a method on it, or to dereference it.
func receiverKept(body *ast.BlockStmt, recv *ast.Object) bool {
	plain := map[*ast.Ident]bool{}
	kept := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				plain[id] = true
			}
		case *ast.StarExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				plain[id] = true
			}
		case *ast.Ident:
			kept = kept || x.Obj == recv && !plain[x]
		}
		return !kept
	})
	return kept
}

// capturesIn returns where, in f, a loop's variable is captured by a
// function literal not called at once, or has its address taken, inside
// the loop's body: explicitly (&v, unless handed to a function of funcs,
// the package's, that does not keep it), or implicitly, by a pointer
// method of funcs taken as a value or keeping its receiver, or by slicing
// an array (v[:] of a range over [][3]int).
func capturesIn(f *ast.File, funcs pkgFuncs) []token.Pos {
	syncPkgs := map[string]bool{} // the imports whose functions call a literal they are given before they return
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, "`\"")
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		syncPkgs[name] = slices.Contains([]string{"sort", "slices", "strings", "bytes", "maps", "unicode"}, path)
	}
	var found []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		var vars []*ast.Ident
		var body *ast.BlockStmt
		arrays := false // the loop's value variable holds an array
		switch x := n.(type) {
		case *ast.ForStmt:
			if as, ok := x.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				for _, l := range as.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						vars = append(vars, id)
					}
				}
			}
			body = x.Body
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
						vars = append(vars, id)
					}
				}
			}
			body = x.Body
			arrays = x.Value != nil && arrayElems(x.X)
		}
		if len(vars) == 0 {
			return true
		}
		decls := map[*ast.Object]bool{}
		for _, v := range vars {
			if v.Obj != nil {
				decls[v.Obj] = true
			}
		}
		l := loopUses{decls: decls, funcs: funcs, syncPkgs: syncPkgs}
		if rs, ok := n.(*ast.RangeStmt); ok && arrays {
			l.array = rs.Value.(*ast.Ident).Obj
		}
		found = append(found, l.outlives(body)...)
		return true
	})
	return found
}

// arrayElems reports whether the elements of x, ranged over, are arrays
// as far as its declaration in the file shows ([][3]int, [4][3]float64).
func arrayElems(x ast.Expr) bool {
	var typ ast.Expr
	switch e := ast.Unparen(x).(type) {
	case *ast.CompositeLit:
		typ = e.Type
	case *ast.Ident:
		if e.Obj == nil {
			return false
		}
		switch d := e.Obj.Decl.(type) {
		case *ast.ValueSpec:
			typ = d.Type
			if typ == nil && len(d.Values) == len(d.Names) {
				for i, n := range d.Names {
					if n.Obj == e.Obj {
						typ = valueType(d.Values[i])
					}
				}
			}
		case *ast.AssignStmt:
			if len(d.Lhs) == len(d.Rhs) {
				for i, l := range d.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Obj == e.Obj {
						typ = valueType(d.Rhs[i])
					}
				}
			}
		case *ast.Field:
			typ = d.Type
		}
	}
	at, ok := typ.(*ast.ArrayType)
	if !ok {
		return false
	}
	elem, ok := at.Elt.(*ast.ArrayType)
	return ok && elem.Len != nil
}

// valueType is the type written in e, a composite literal or a make call.
func valueType(e ast.Expr) ast.Expr {
	switch v := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return v.Type
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "make" && len(v.Args) > 0 {
			return v.Args[0]
		}
	}
	return nil
}

// loopUses finds the uses of a loop's variables by which they outlive an
// iteration.
type loopUses struct {
	decls    map[*ast.Object]bool // the loop's variables
	array    *ast.Object          // the value variable, when it holds an array
	funcs    pkgFuncs
	syncPkgs map[string]bool // import names whose functions run a literal before they return
}

// outlives returns where, in body, a variable of l.decls (the loop's, as
// the parser resolves names: i := i in the body, or a literal's parameter
// k, declare others) is used in a function literal that is not called
// where it stands (go and defer call it later), or has its address taken.
func (l loopUses) outlives(body *ast.BlockStmt) []token.Pos {
	names := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && id.Obj != nil && l.decls[id.Obj]
	}
	var found []token.Pos
	called := map[*ast.FuncLit]bool{}
	calledSel := map[*ast.SelectorExpr]bool{}
	lent := map[*ast.UnaryExpr]bool{} // &v handed to a function that keeps nothing
	later := map[*ast.CallExpr]bool{} // go and defer run the call after the iteration
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GoStmt:
			later[x.Call] = true
		case *ast.DeferStmt:
			later[x.Call] = true
		case *ast.CallExpr:
			if lit, ok := ast.Unparen(x.Fun).(*ast.FuncLit); ok && !later[x] {
				called[lit] = true
			}
			if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
				calledSel[sel] = true
				if m, ok := l.funcs.methods[sel.Sel.Name]; ok && names(sel.X) && (m.keeps || later[x]) {
					found = append(found, sel.Pos()) // v.Self(): the method keeps &v
				}
			}
			if !later[x] {
				l.handedOn(x, called, lent)
			}
		case *ast.SelectorExpr:
			if _, ok := l.funcs.methods[x.Sel.Name]; ok && names(x.X) && !calledSel[x] {
				found = append(found, x.Pos()) // f := v.Report: the value holds &v
			}
		case *ast.SliceExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && l.array != nil && id.Obj == l.array {
				found = append(found, x.Pos()) // v[:] of an array: &v
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND && names(x.X) && !lent[x] {
				found = append(found, x.Pos())
			}
		case *ast.FuncLit:
			if called[x] {
				return true
			}
			ast.Inspect(x.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && names(id) {
					found = append(found, id.Pos())
					return false
				}
				return true
			})
			return false
		}
		return true
	})
	return found
}

// handedOn adds to called the function literals that call, not deferred,
// hands to a function of a package that runs them before it returns
// (sort.Slice(p, func(a, b int) bool {...})), and to lent the addresses
// &v it hands to a function of the package that does not keep them
// (norm(&p)).
func (l loopUses) handedOn(call *ast.CallExpr, called map[*ast.FuncLit]bool, lent map[*ast.UnaryExpr]bool) {
	var kept []bool
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		if pkg, ok := fun.X.(*ast.Ident); ok && pkg.Obj == nil && l.syncPkgs[pkg.Name] {
			for _, a := range call.Args {
				if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
					called[lit] = true
				}
			}
		}
		return
	case *ast.Ident:
		if fun.Obj != nil && fun.Obj.Kind != ast.Fun {
			return // a variable holding a function
		}
		kept = l.funcs.kept[fun.Name]
	}
	for i, a := range call.Args {
		if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND && i < len(kept) && !kept[i] {
			lent[u] = true
		}
	}
}

// moduleFiles returns the files below root that keep accepts, in walk
// order, leaving out the directories that are not the module's packages:
// testdata, vendor, hidden ones and nested modules.
func moduleFiles(root string, keep func(path string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")):
			return filepath.SkipDir
		case d.IsDir() && p != root:
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		case !d.IsDir() && keep(p):
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// loopvarError is the error for a module before go 1.22 whose loop
// variables outlive their iterations at places.
func loopvarError(gomod, userGo string, places []string) error {
	return fmt.Errorf("%s declares go %s, under which every iteration of a loop shares one loop variable, but cape builds with the language version of go %s, where each iteration has its own, and this program would see the difference: a loop variable outlives its iteration (captured by a function literal, or its address taken, also by a pointer method or by slicing an array) at %s; "+
		"raise the go line of go.mod to 1.22 or later after checking that the program means each iteration's own variable or declare a copy in the body (i := i)",
		gomod, userGo, runtimeGo(), strings.Join(places, ", "))
}
