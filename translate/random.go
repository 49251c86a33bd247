package translate

import (
	"go/ast"
	"go/types"
)

// Every node runs the program's sequential code, which must compute the
// same values on each. math/rand/v2's top-level functions, crypto/rand and
// maphash.MakeSeed draw numbers of each process's own: called where no region runs, they
// give every node different data, and the regions combine the nodes'
// shares of it. (math/rand's top-level functions draw the same numbers on
// every node: the runtime seeds them alike.)

// unseeded lists, by package, the functions that draw from a generator of
// the process's own.
var unseeded = map[string]map[string]bool{
	"math/rand/v2": {"Int": true, "IntN": true, "Int32": true, "Int32N": true, "Int64": true, "Int64N": true,
		"Uint": true, "UintN": true, "Uint32": true, "Uint32N": true, "Uint64": true, "Uint64N": true,
		"Float32": true, "Float64": true, "ExpFloat64": true, "NormFloat64": true, "Perm": true, "Shuffle": true, "N": true},
	"crypto/rand":  {"Read": true, "Int": true, "Prime": true, "Text": true},
	"hash/maphash": {"MakeSeed": true}, // a random seed: each process hashes differently
}

// sequentialRandom refuses the calls of unseeded functions in code that no
// region runs, in a program with a region.
func (t *translator) sequentialRandom(code *regionCode) {
	if len(t.regions) == 0 {
		return
	}
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := t.packageFunc(call)
			if fn == nil || !unseeded[fn.Pkg().Path()][fn.Name()] || t.mayRunInRegion(code, call) {
				return true
			}
			fix := "use a generator with a fixed seed (rand.New(rand.NewPCG(1, 2)))"
			if fn.Pkg().Path() == "hash/maphash" {
				fix = "hash with hash/fnv, whose hashes are the same in every process"
			}
			t.errorf(call.Pos(), "%s.%s draws numbers of this process's own, outside the parallel regions: every node runs this code and would draw different ones, so the nodes' shares of the regions' results would not fit together; %s", fn.Pkg().Name(), fn.Name(), fix)
			return true
		})
	}
	t.foreignRandom(code)
}

// packageFunc returns the package-level function of another package that
// call calls (rand.IntN, rand.N[int]), or nil.
func (t *translator) packageFunc(call *ast.CallExpr) *types.Func {
	sel, ok := calleeOf(call).(*ast.SelectorExpr)
	if !ok || t.info.Selections[sel] != nil {
		return nil // a method, or a field
	}
	fn, ok := t.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg() == t.p.types {
		return nil
	}
	return fn
}

// mapOrder refuses, in code that no region runs, a range over a map that
// appends to a variable that region code reads, unless the function sorts
// it after the range: the order of a map's range differs from process to
// process, so each node would build the slice in its own order.
func (t *translator) mapOrder(code *regionCode) {
	if len(t.regions) == 0 {
		return
	}
	read := map[*types.Var]bool{}
	for _, n := range append(t.regionStmts(), code.bodies...) {
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v := t.varOf(id); v != nil {
					read[v] = true
				}
			}
			return true
		})
	}
	// The variables built in a map's order and not sorted after, each at
	// the first statement that builds it so.
	ordered := map[*types.Var]ast.Node{}
	var order []*types.Var
	refuse := func(at ast.Node, v *types.Var, after ast.Stmt) {
		if v == nil || ordered[v] != nil || t.sortedAfter(v, after) {
			return
		}
		ordered[v] = at
		order = append(order, v)
	}
	defer func() {
		t.orderedCopies(code, ordered, &order, refuse)
		for _, v := range order {
			if read[v] {
				t.errorf(ordered[v].Pos(), "%s is built in the order of a range over a map, which differs from process to process, and a parallel region uses it: each node would hold its elements in another order; sort it after the loop (slices.Sort(%s)), or range over slices.Sorted(maps.Keys(m))", v.Name(), v.Name())
			}
		}
	}()
	for _, f := range t.p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil || t.mayRunInRegion(code, n) {
				return true
			}
			switch x := n.(type) {
			case *ast.AssignStmt:
				// keys := slices.Collect(maps.Keys(m))
				if len(x.Lhs) == 1 && len(x.Rhs) == 1 && t.collectsMap(x.Rhs[0]) {
					refuse(x, t.rootVar(x.Lhs[0]), x)
				}
			case *ast.CallExpr:
				// maps.Keys(m)(func(k K) bool { keys = append(keys, k); … })
				if call, ok := ast.Unparen(x.Fun).(*ast.CallExpr); ok && t.mapOrdered(call) && len(x.Args) == 1 {
					if lit, ok := ast.Unparen(x.Args[0]).(*ast.FuncLit); ok {
						t.closureAppends(lit.Body, func(as *ast.AssignStmt, v *types.Var) { refuse(as, v, t.stmtOf(x)) })
					}
				}
			case *ast.RangeStmt:
				if !t.mapOrdered(x.X) {
					return true
				}
				ast.Inspect(x.Body, func(n ast.Node) bool {
					switch y := n.(type) {
					case *ast.AssignStmt:
						if len(y.Lhs) == 1 && len(y.Rhs) == 1 {
							if v := t.orderedStore(x, y); v != nil {
								refuse(y, v, x)
							}
						}
					case *ast.CallExpr: // a closure the body calls, appending
						targets, _ := t.callees(y, func(*types.Var) bool { return false })
						for _, c := range targets {
							if c.lit != nil {
								t.closureAppends(c.lit.Body, func(as *ast.AssignStmt, v *types.Var) { refuse(as, v, x) })
							}
						}
					}
					return true
				})
			}
			return true
		})
	}
}

// orderedCopies adds to ordered (by refuse) the variables that code no
// region runs copies from one of them (k2 := slices.Clone(keys), copy(k2,
// keys), k2 = append(k2, keys...)), until none is added.
func (t *translator) orderedCopies(code *regionCode, ordered map[*types.Var]ast.Node, order *[]*types.Var, refuse func(ast.Node, *types.Var, ast.Stmt)) {
	for n := 0; n != len(*order); {
		n = len(*order)
		for _, f := range t.p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				if n == nil || t.mayRunInRegion(code, n) {
					return true
				}
				switch x := n.(type) {
				case *ast.AssignStmt:
					if len(x.Lhs) == 1 && len(x.Rhs) == 1 && t.copiesFrom(x.Rhs[0], ordered) {
						refuse(x, t.rootVar(x.Lhs[0]), x)
					}
				case *ast.ExprStmt:
					call, ok := x.X.(*ast.CallExpr)
					if !ok {
						break
					}
					if b, isB := t.info.Uses[calleeIdent(call)].(*types.Builtin); isB && b.Name() == "copy" && len(call.Args) == 2 && t.copiesFrom(call.Args[1], ordered) {
						refuse(x, t.rootVar(call.Args[0]), x)
					}
				}
				return true
			})
		}
	}
}

// copiesFrom reports whether e's value holds the elements of a variable
// of ordered, in their order: the variable, a slice of it, a clone or a
// concatenation of it, or an append of its elements.
func (t *translator) copiesFrom(e ast.Expr, ordered map[*types.Var]ast.Node) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v := t.varOf(x)
		return v != nil && ordered[v] != nil
	case *ast.SliceExpr:
		return t.copiesFrom(x.X, ordered)
	case *ast.CallExpr:
		if fn := t.packageFunc(x); fn != nil && copies(fn) || t.isAppend(x) {
			for _, a := range x.Args {
				if t.copiesFrom(a, ordered) {
					return true
				}
			}
		}
	}
	return false
}

// closureAppends passes found each append in body (a function literal's)
// and the variable it appends to.
func (t *translator) closureAppends(body *ast.BlockStmt, found func(*ast.AssignStmt, *types.Var)) {
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 && t.isAppend(as.Rhs[0]) {
			if v := t.rootVar(as.Lhs[0]); v != nil {
				found(as, v)
			}
		}
		return true
	})
}

// mapOrdered reports whether ranging over e visits a map's entries in
// the map's order: e is a map, or an iterator over one (maps.Keys,
// maps.Values, maps.All).
func (t *translator) mapOrdered(e ast.Expr) bool {
	if _, isMap := t.info.TypeOf(e).Underlying().(*types.Map); isMap {
		return true
	}
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := t.packageFunc(call)
	return fn != nil && fn.Pkg().Path() == "maps" && (fn.Name() == "Keys" || fn.Name() == "Values" || fn.Name() == "All")
}

// collectsMap reports whether e collects an iterator over a map into a
// slice in the map's order: slices.Collect(maps.Keys(m)), or
// slices.AppendSeq(s, maps.Values(m)).
func (t *translator) collectsMap(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	fn := t.packageFunc(call)
	return fn != nil && fn.Pkg().Path() == "slices" && (fn.Name() == "Collect" || fn.Name() == "AppendSeq") && t.mapOrdered(call.Args[len(call.Args)-1])
}

// orderedStore returns the variable that as, a statement of rg's body (a
// range in a map's order), stores into in that order: an append to it,
// or an element written at an index that a counter of the loop gives
// (keys[j] = k; j++); else nil.
func (t *translator) orderedStore(rg *ast.RangeStmt, as *ast.AssignStmt) *types.Var {
	if t.isAppend(as.Rhs[0]) {
		return t.rootVar(as.Lhs[0])
	}
	ix, ok := ast.Unparen(as.Lhs[0]).(*ast.IndexExpr)
	if !ok {
		return nil
	}
	if _, isMap := t.info.TypeOf(ix.X).Underlying().(*types.Map); isMap {
		return nil
	}
	counted := false
	ast.Inspect(ix.Index, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v := t.varOf(id); v != nil && !within(v.Pos(), rg) && t.assignedIn(rg.Body, v) {
				counted = true
			}
		}
		return !counted
	})
	if !counted {
		return nil
	}
	return t.rootVar(ix.X)
}

// assignedIn reports whether n assigns v (=, op=, ++, --).
func (t *translator) assignedIn(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		var lhs []ast.Expr
		switch x := m.(type) {
		case *ast.AssignStmt:
			lhs = x.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{x.X}
		}
		for _, l := range lhs {
			if id, ok := ast.Unparen(l).(*ast.Ident); ok && t.varOf(id) == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// regionStmts returns the statements of the regions.
func (t *translator) regionStmts() []ast.Node {
	var out []ast.Node
	for _, r := range t.regions {
		out = append(out, r.stmt)
	}
	return out
}

// isAppend reports whether e is a call of the builtin append.
func (t *translator) isAppend(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin)
	return ok && b.Name() == "append"
}

// sortedAfter reports whether a function of package sort or slices is
// called with v as its first argument after the statement after, in the
// function that holds it.
func (t *translator) sortedAfter(v *types.Var, after ast.Stmt) bool {
	fn := t.enclosing(after, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return true
		}
		return false
	})
	return fn != nil && sortedIn(t.info, fn, v, after.End())
}
