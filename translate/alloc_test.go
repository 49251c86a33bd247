package translate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// arenaCalls are the runtime functions that allocate or free arena memory,
// which the runtime refuses (panics) while a region runs.
var arenaCalls = map[string]bool{"New": true, "Make": true, "Alloc": true, "Free": true}

// TestNoArenaCallInRegions translates every test program (translate's
// testdata, cmd/cape's testdata, examples/) and checks the generated code:
// no arena allocation or free may be reachable from a region's body, that
// is syntactically inside the code between a region's Start and Create or
// its --verify re-run, or in a function of the package that such code may
// call (statically, through a method of the same name, or through a
// function value it mentions).
func TestNoArenaCallInRegions(t *testing.T) {
	if testing.Short() {
		t.Skip("translates every program of the repository")
	}
	var dirs []string
	for _, root := range []string{"../internal/gocmd/testdata/linepanic", "../cmd/cape/testdata", "../examples"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if ok, _ := filepath.Glob(filepath.Join(path, "*.go")); len(ok) > 0 {
				dirs = append(dirs, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The translate testdata inputs that translate, one package each.
	var singles []string
	files, _ := filepath.Glob("testdata/*.go")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && !wantRE.Match(b) {
			singles = append(singles, f)
		}
	}
	imp := allImporter(t, dirs, singles)
	cfg := &Config{Importer: imp}
	checked := 0
	check := func(name string, res *Result) {
		if res == nil || len(res.Files) == 0 {
			return
		}
		checked++
		for _, bad := range arenaCallsInRegions(t, imp, res.Files) {
			t.Errorf("%s: %s", name, bad)
		}
	}
	for _, dir := range dirs {
		paths, err := goFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cfg.Files(dir, paths, nil)
		if err != nil {
			t.Errorf("%s: not translated: %v", dir, firstLine(err))
			continue
		}
		check(dir, res)
	}
	for _, f := range singles {
		res, err := cfg.Files("testdata", []string{f}, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		check(f, res)
	}
	t.Logf("checked %d translated programs", checked)
	if checked < 40 {
		t.Errorf("checked %d translated programs, want at least 40", checked)
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// allImporter resolves the imports of every program the test translates,
// and of the cape runtime, with one go list run.
func allImporter(t *testing.T, dirs, singles []string) types.Importer {
	t.Helper()
	var all []string
	for _, d := range dirs {
		fs, _ := filepath.Glob(filepath.Join(d, "*.go"))
		all = append(all, fs...)
	}
	imp, err := importerFor(append(all, singles...))
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

// arenaCallsInRegions type-checks a translated package and returns, as
// "file:line: ..." strings, every arena call reachable from a region.
func arenaCallsInRegions(t *testing.T, imp types.Importer, srcs map[string][]byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	names := make([]string, 0, len(srcs))
	for name := range srcs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, srcs[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("translation of %s does not parse: %v", name, err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check("main", fset, files, info)
	if err != nil {
		t.Errorf("translation of %s does not type-check: %v", strings.Join(names, ", "), err)
	}
	g := &genCode{info: info, pkg: pkg, decls: map[*types.Func]*ast.FuncDecl{}, byName: map[string][]*ast.FuncDecl{}}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
					g.decls[fn] = fd
				}
				g.byName[fd.Name.Name] = append(g.byName[fd.Name.Name], fd)
			}
		}
	}
	var roots []ast.Node
	for _, f := range files {
		roots = append(roots, g.regionCode(f)...)
	}
	if len(roots) == 0 {
		t.Errorf("no region found in the translation of %s", strings.Join(names, ", "))
	}
	var out []string
	seen := map[ast.Node]bool{}
	for len(roots) > 0 {
		n := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		ast.Inspect(n, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.CallExpr:
				if name := g.capeCall(x); arenaCalls[name] {
					out = append(out, fset.Position(x.Pos()).String()+": cape."+name+" may run inside a region")
				}
			case *ast.Ident:
				roots = append(roots, g.funcsNamed(x)...)
			}
			return true
		})
	}
	return out
}

// genCode is a type-checked translated package.
type genCode struct {
	info   *types.Info
	pkg    *types.Package
	decls  map[*types.Func]*ast.FuncDecl
	byName map[string][]*ast.FuncDecl // methods by name, for interface calls
}

// capeCall returns the name of the cape runtime function call calls, or "".
func (g *genCode) capeCall(call *ast.CallExpr) string {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, ok := g.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != capePath {
		return ""
	}
	return fn.Name()
}

// funcsNamed returns the bodies an identifier may lead to: the package's
// function or method it denotes (called or not), and for an interface
// method every method of the package with its name.
func (g *genCode) funcsNamed(id *ast.Ident) []ast.Node {
	fn, ok := g.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != g.pkg {
		return nil
	}
	if d := g.decls[fn.Origin()]; d != nil {
		return []ast.Node{d}
	}
	var out []ast.Node
	for _, d := range g.byName[id.Name] {
		if d.Recv != nil {
			out = append(out, d)
		}
	}
	return out
}

// regionCode returns the code of f's regions: in each block that begins a
// region (x := cape.Begin(...)), the statements between x.Start() and
// x.Create(), and the if x.Verifying() re-run.
func (g *genCode) regionCode(f *ast.File) []ast.Node {
	var out []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		blk, ok := n.(*ast.BlockStmt)
		if !ok {
			return true
		}
		var r types.Object
		in := false
		for _, s := range blk.List {
			if as, ok := s.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
				if call, ok := as.Rhs[0].(*ast.CallExpr); ok && g.capeCall(call) == "Begin" {
					r = g.info.Defs[as.Lhs[0].(*ast.Ident)]
					continue
				}
			}
			if r == nil {
				continue
			}
			switch {
			case g.callsMethod(s, r, "Start"):
				in = true
				continue
			case g.callsMethod(s, r, "Create"):
				in = false
			}
			if ifs, ok := s.(*ast.IfStmt); ok && g.callsMethod(ifs.Cond, r, "Verifying") {
				out = append(out, ifs.Body)
			}
			if in {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// callsMethod reports whether n calls the method name of the variable r.
func (g *genCode) callsMethod(n ast.Node, r types.Object, name string) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if sel, ok := x.(*ast.SelectorExpr); ok && sel.Sel.Name == name {
			if id, ok := sel.X.(*ast.Ident); ok && g.info.Uses[id] == r {
				found = true
			}
		}
		return !found
	})
	return found
}
