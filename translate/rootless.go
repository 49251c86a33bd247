package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The region's analysis classifies the uses of variables (classifyUse): a
// write is seen through the variable it is rooted at. A write rooted at a
// call's result (get()[i] = v, *p() += 1, copy(buf(), src)) names no
// variable, so it is found here, and the memory the call's result refers
// to is traced like a variable's (needExpr): to the arena, private, or
// refused (another package's function's result).

// rootlessWrites traces, in node n of code the region runs, the memory
// that writes rooted at a call's result write to.
func (t *analyzer) rootlessWrites(n ast.Node) {
	var targets []ast.Expr
	switch x := n.(type) {
	case *ast.AssignStmt:
		if x.Tok != token.DEFINE {
			targets = x.Lhs
		}
	case *ast.IncDecStmt:
		targets = []ast.Expr{x.X}
	case *ast.RangeStmt:
		if x.Tok == token.ASSIGN {
			targets = []ast.Expr{x.Key, x.Value}
		}
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			targets = []ast.Expr{x.X}
		}
	case *ast.CallExpr:
		targets = t.callWrites(x)
	}
	for _, e := range targets {
		if e == nil {
			continue
		}
		if call := t.writeRoot(e); call != nil {
			t.needExpr(trace{}, call, t.text(call), e.Pos())
		}
	}
}

// callWrites returns what a call writes through besides its arguments'
// own uses: copy's and clear's first argument. (A method's writes through
// its receiver are followed into its body, where the receiver's value is
// the call's.)
func (t *translator) callWrites(call *ast.CallExpr) []ast.Expr {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if b, ok := t.info.Uses[f].(*types.Builtin); ok && (b.Name() == "copy" || b.Name() == "clear") && len(call.Args) > 0 {
			return call.Args[:1]
		}
	}
	return nil
}

// writeRoot returns the call whose result e writes through (e is get()[i],
// get().f, *get(), get()[a:b]), or nil when e is rooted at a variable,
// a literal or something else.
func (t *translator) writeRoot(e ast.Expr) *ast.CallExpr {
	call, _ := placeRoot(t.info, e).(*ast.CallExpr)
	return call
}

// placeRoot strips from e the field selections, indexes, slices,
// dereferences, type assertions and conversions that keep to the memory
// its root refers to, and returns that root: an identifier, a qualified
// identifier (pkg.V), a call that is not a conversion, or another
// expression.
func placeRoot(info *types.Info, e ast.Expr) ast.Expr {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.TypeAssertExpr:
			e = x.X
		case *ast.SelectorExpr:
			if _, pkg := info.Uses[identOf(x.X)].(*types.PkgName); pkg {
				return x
			}
			e = x.X
		case *ast.CallExpr:
			if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				e = x.Args[0] // a conversion
				continue
			}
			return x
		default:
			return x
		}
	}
}

// identOf is e as an identifier, or nil.
func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}
