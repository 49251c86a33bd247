package translate

import (
	"go/ast"
	"go/types"
)

// Every node runs the program's sequential code, which must compute the
// same values on each. math/rand/v2's top-level functions and crypto/rand
// draw numbers of each process's own: called where no region runs, they
// give every node different data, and the regions combine the nodes'
// shares of it. (math/rand's top-level functions draw the same numbers on
// every node: the runtime seeds them alike.)

// unseeded lists, by package, the functions that draw from a generator of
// the process's own.
var unseeded = map[string]map[string]bool{
	"math/rand/v2": {"Int": true, "IntN": true, "Int32": true, "Int32N": true, "Int64": true, "Int64N": true,
		"Uint": true, "UintN": true, "Uint32": true, "Uint32N": true, "Uint64": true, "Uint64N": true,
		"Float32": true, "Float64": true, "ExpFloat64": true, "NormFloat64": true, "Perm": true, "Shuffle": true, "N": true},
	"crypto/rand": {"Read": true, "Int": true, "Prime": true, "Text": true},
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
			t.errorf(call.Pos(), "%s.%s draws numbers of this process's own, outside the parallel regions: every node runs this code and would draw different ones, so the nodes' shares of the regions' results would not fit together; use a generator with a fixed seed (rand.New(rand.NewPCG(1, 2)))", fn.Pkg().Name(), fn.Name())
			return true
		})
	}
}

// packageFunc returns the package-level function of another package that
// call calls (rand.IntN, rand.N[int]), or nil.
func (t *translator) packageFunc(call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok || t.info.Selections[sel] != nil {
		return nil // a method, or a field
	}
	fn, ok := t.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg() == t.p.types {
		return nil
	}
	return fn
}
