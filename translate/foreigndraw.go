package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// This file follows into other packages' code what makes the sequential
// code compute different values on different processes: a draw from a
// generator of the process's own (unseeded), and a slice built in the
// order of a range over a map. A function of the user's package kern that
// fills a slice with rand.Float64, or returns a map's keys unsorted, gives
// every node other data when the main package's sequential code calls
// it, as the same code in the main package would (sequentialRandom,
// mapOrder).

// A draw is where a function of another package computes what differs
// from process to process: what it does (its text, naming the place),
// and how to make it the same.
type draw struct {
	what, fix string
	order     bool // a slice built in a map's order: sorting it after makes it the same
}

const (
	drawFix  = "use a generator with a fixed seed (rand.New(rand.NewPCG(1, 2)))"
	orderFix = "sort it after the loop (slices.Sort), or range over slices.Sorted(maps.Keys(m))"
)

// drawOf returns where fn, a function or method of a package outside the
// standard library, or one it names statically (calls, or hands on as a
// value), computes what differs from process to process; nil if it does
// not, or its source cannot be read.
func (t *translator) drawOf(fn *types.Func) *draw {
	f := t.foreign
	if f == nil || f.imp == nil || fn == nil || fn.Pkg() == nil {
		return nil
	}
	fn = fn.Origin()
	return answer(f, f.draws, "draw "+fn.FullName(), func() *draw {
		fp := f.load(fn.Pkg().Path())
		if fp == nil || fp.decls[fn.FullName()] == nil {
			return nil
		}
		return t.drawIn(fp, fp.decls[fn.FullName()])
	})
}

// drawIn returns the first draw in n, code of fp: a function of unseeded
// named there, a slice built in a map's order and not sorted after, or a
// function of a package with source that does either.
func (t *translator) drawIn(fp *foreignPkg, n ast.Node) *draw {
	var found *draw
	ast.Inspect(n, func(m ast.Node) bool {
		switch x := m.(type) {
		case *ast.RangeStmt:
			found = t.mapOrderIn(fp, n, x)
		case *ast.Ident:
			fn, ok := fp.info.Uses[x].(*types.Func)
			if !ok || fn.Pkg() == nil {
				break
			}
			if sig, _ := fn.Type().(*types.Signature); sig != nil && sig.Recv() == nil && unseeded[fn.Pkg().Path()][fn.Name()] {
				found = &draw{fmt.Sprintf("draws numbers of this process's own (%s.%s at %s)", fn.Pkg().Name(), fn.Name(), t.foreignWhere(x.Pos())), drawFix, false}
			} else if !t.foreign.standard(fn.Pkg().Path()) && !capeOwn(fn.Pkg().Path()) {
				found = t.drawOf(fn)
				if found != nil && found.order && sortedResult(fp, n, x) {
					found = nil // ks := keys(m); sort.Strings(ks)
				}
			}
		}
		return found == nil
	})
	return found
}

// mapOrderIn returns a draw when rg, a statement of fn (code of fp), ranges
// over a map and appends to a variable that fn does not sort after it.
func (t *translator) mapOrderIn(fp *foreignPkg, fn ast.Node, rg *ast.RangeStmt) *draw {
	if _, isMap := fp.info.TypeOf(rg.X).Underlying().(*types.Map); !isMap {
		return nil
	}
	var found *draw
	ast.Inspect(rg.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found != nil || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return found == nil
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		if b, _ := fp.info.Uses[calleeIdent(call)].(*types.Builtin); b == nil || b.Name() != "append" {
			return true
		}
		v := rootVar(fp.info, as.Lhs[0])
		if v == nil || sortedIn(fp.info, fn, v, rg.End()) {
			return true
		}
		found = &draw{fmt.Sprintf("appends to %s in the order of a range over a map (%s), which differs from process to process", v.Name(), t.foreignWhere(as.Pos())), orderFix, true}
		return false
	})
	return found
}

// sortedResult reports whether id names the function of a call whose
// result is assigned to a variable that n, code of fp, sorts after.
func sortedResult(fp *foreignPkg, n ast.Node, id *ast.Ident) bool {
	e := fp.parents[id]
	if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel == id {
		e = fp.parents[sel]
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	as, ok := fp.parents[call].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != call {
		return false
	}
	v := rootVar(fp.info, as.Lhs[0])
	return v != nil && sortedIn(fp.info, n, v, as.End())
}

// sortedResult reports whether sel names the function of a call in the
// main package whose result is assigned to a variable sorted after it.
func (t *translator) sortedResult(sel *ast.SelectorExpr) bool {
	call, ok := t.parent[sel].(*ast.CallExpr)
	if !ok {
		return false
	}
	as, ok := t.parent[call].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Rhs[0] != call {
		return false
	}
	v := t.rootVar(as.Lhs[0])
	return v != nil && t.sortedAfter(v, as)
}

// sortedIn reports whether a function of package sort or slices is called
// in n after the position after with v as its first argument.
func sortedIn(info *types.Info, n ast.Node, v *types.Var, after token.Pos) bool {
	sorted := false
	ast.Inspect(n, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || sorted || call.Pos() < after || len(call.Args) == 0 {
			return !sorted
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		fn, ok := info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.Pkg() == nil || !(fn.Pkg().Path() == "sort" || fn.Pkg().Path() == "slices" && strings.HasPrefix(fn.Name(), "Sort")) {
			return true
		}
		arg := ast.Unparen(call.Args[0])
		if conv, ok := arg.(*ast.CallExpr); ok && len(conv.Args) == 1 {
			if tv, ok := info.Types[conv.Fun]; ok && tv.IsType() {
				arg = conv.Args[0] // sort.Sort(sort.StringSlice(keys))
			}
		}
		sorted = rootVar(info, arg) == v
		return !sorted
	})
	return sorted
}

// initDraw returns the first draw made when a package outside the
// standard library that the program imports, other than main (its path),
// starts (and that package's path): in its variables' initialisers or
// init functions, directly or through what they call.
func (t *translator) initDraw(main string) (*draw, string) {
	f := t.foreign
	if f == nil || f.imp == nil {
		return nil, ""
	}
	lister, ok := f.imp.(interface{ Packages() []string })
	if !ok {
		return nil, ""
	}
	for _, path := range lister.Packages() {
		if path == main || capeOwn(path) {
			continue
		}
		fp := f.load(path)
		if fp == nil {
			continue
		}
		for _, n := range fp.inits {
			if d := t.drawIn(fp, n); d != nil {
				return d, path
			}
		}
	}
	return nil, ""
}

// foreignRandom refuses, in code that no region runs, the calls (or
// namings) of functions and methods of other packages outside the
// standard library that compute what differs from process to process
// (drawOf), and such a computation when one of those packages starts.
func (t *translator) foreignRandom(code *regionCode) {
	const why = "every node runs this code and would compute different data, so the nodes' shares of the regions' results would not fit together"
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			fn, ok := t.info.Uses[sel.Sel].(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg() == t.p.types || t.foreign.standard(fn.Pkg().Path()) || capeOwn(fn.Pkg().Path()) || t.mayRunInRegion(code, sel) {
				return true
			}
			if d := t.drawOf(fn); d != nil && !(d.order && t.sortedResult(sel)) {
				t.errorf(sel.Pos(), "%s.%s, outside the parallel regions, %s: %s; %s", fn.Pkg().Name(), funcName(fn), d.what, why, d.fix)
			}
			return true
		})
	}
	d, path := t.initDraw(t.p.types.Path())
	if d == nil {
		return
	}
	at := t.regions[0].stmt.Pos()
	for _, f := range t.p.files {
		for _, is := range f.Imports {
			if strings.Trim(is.Path.Value, `"`) == path {
				at = is.Pos()
			}
		}
	}
	t.errorf(at, "package %s, as it starts, %s: %s; %s", path, d.what, why, d.fix)
}

// capeOwn reports whether path is a package of CAPE's own module (its
// runtime and what it uses), which keeps the nodes alike itself.
func capeOwn(path string) bool {
	module := strings.TrimSuffix(capePath, "/cape")
	return path == module || strings.HasPrefix(path, module+"/")
}
