package translate

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math/big"
	"path/filepath"
)

// A three-clause parallel loop's count is computed once, before the loop,
// from its bounds and step evaluated once; go run evaluates the condition
// and the increment at every iteration, in the loop variable's type, which
// wraps around. The count is go run's only where the condition and the
// increment read the same values at every iteration (forPure here; and
// loopHeadWrites, headwrites.go, refuses the body's writes of what they
// read), and where the variable crosses the bound without wrapping around
// (forEnds: proven here, refused here when it never can, or checked at
// run time by cape.LoopCount).

// pureMathPkgs are the packages whose functions a loop's condition or
// increment may call: they compute a value from their arguments alone.
var pureMathPkgs = map[string]bool{"math": true, "math/bits": true}

// forPure reports a condition or increment of the loop li that go run would
// not evaluate to the same value at every iteration, as CAPE evaluates it
// once: one that calls a function (other than len, cap, min, max, a
// conversion, a function of package math or a getter), receives from a channel, or
// uses the loop variable in its bound or step. It returns false then.
func (t *translator) forPure(li *loopInfo) bool {
	ok := true
	check := func(e ast.Expr, what, name string) {
		if e == nil {
			return
		}
		ast.Inspect(e, func(n ast.Node) bool {
			if ex, isExpr := n.(ast.Expr); isExpr && t.info.Types[ex].Value != nil {
				return false // a constant: computed by the compiler
			}
			switch x := n.(type) {
			case *ast.CallExpr:
				if !t.pureCall(x) {
					t.errorf(x.Pos(), "the loop %s calls %s, which go run calls at every iteration and CAPE once, before the loop: compute the %s once before the loop (%s := %s) and use that", what, t.text(x.Fun), name, name, t.text(x))
					ok = false
				}
			case *ast.UnaryExpr:
				if x.Op == token.ARROW {
					t.errorf(x.Pos(), "the loop %s receives from a channel, which go run does at every iteration and CAPE once, before the loop: receive the %s once before the loop", what, name)
					ok = false
				}
			case *ast.FuncLit:
				return false // a function value: called (and refused) or not
			case *ast.Ident:
				if li.v != nil && t.info.Uses[x] == li.v {
					t.errorf(x.Pos(), "the loop's %s uses the loop variable %s, which go run evaluates at every iteration and CAPE once, before the loop: the %s must not depend on %s", name, li.name, name, li.name)
					ok = false
				}
			}
			return true
		})
	}
	check(li.hi, "condition", "bound")
	check(li.step, "increment", "step")
	return ok
}

// pureCall reports whether call computes its value from its arguments
// alone: a conversion, len, cap, min or max, or a function of pureMathPkgs;
// or from what it reads of variables and fields: a getter (getterExpr), or
// another package's (foreignGetter).
func (t *translator) pureCall(call *ast.CallExpr) bool {
	return t.pureCallDepth(call, 0)
}

func (t *translator) pureCallDepth(call *ast.CallExpr, depth int) bool {
	if tv, ok := t.info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	if t.getterExpr(call, depth) != nil {
		return true
	}
	if _, ok := t.foreignGetter(call); ok {
		return true
	}
	var obj types.Object
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		obj = t.info.Uses[f]
	case *ast.SelectorExpr:
		if t.info.Selections[f] != nil {
			return false // a method
		}
		obj = t.info.Uses[f.Sel]
	}
	switch o := obj.(type) {
	case *types.Builtin:
		switch o.Name() {
		case "len", "cap", "min", "max":
			return true
		}
	case *types.Func:
		return o.Pkg() != nil && pureMathPkgs[o.Pkg().Path()]
	}
	return false
}

// getterExpr returns the expression call's callee returns where the callee
// is a function or method of the program whose body is one return of an
// expression that reads variables and fields only, calling nothing but
// what pureCall allows (g.Rows() returning g.rows, or len(g.cells)): go
// run's call at every iteration gives what its one evaluation gives while
// nothing it reads changes, which loopHeadWrites checks (headReadsOf
// reads into it). Nil otherwise.
func (t *translator) getterExpr(call *ast.CallExpr, depth int) ast.Expr {
	fn := t.staticCallee(call)
	if fn == nil || depth > 3 {
		return nil
	}
	d := t.facts.decls[fn]
	if d == nil || d.Body == nil || len(d.Body.List) != 1 {
		return nil
	}
	ret, ok := d.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	x := ret.Results[0]
	simple := true
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			simple = t.pureCallDepth(n, depth+1)
		case *ast.IndexExpr, *ast.IndexListExpr, *ast.StarExpr, *ast.SliceExpr, *ast.FuncLit, *ast.CompositeLit:
			simple = false
		case *ast.UnaryExpr:
			simple = n.Op != token.ARROW && n.Op != token.AND
		}
		return simple
	})
	if !simple {
		return nil
	}
	return x
}

// foreignGetter returns the fields that call reads when it calls a method
// of another package whose source is a getter of its receiver's fields
// (getterReads: m.Cols() returning m.C), as this package sees them; false
// for any other call.
func (t *translator) foreignGetter(call *ast.CallExpr) ([]*types.Var, bool) {
	fn, recv := t.externalCallee(call)
	fun, _ := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if fn == nil || recv == nil || fun == nil || t.info.Selections[fun] == nil || len(t.info.Selections[fun].Index()) != 1 {
		return nil, false // (a promoted method's receiver is an embedded field)
	}
	paths, ok := t.foreign.getterReads(fn)
	if !ok {
		return nil, false
	}
	var out []*types.Var
	for _, path := range paths {
		typ := t.info.TypeOf(recv)
		for _, i := range path {
			if p, ok := typ.Underlying().(*types.Pointer); ok {
				typ = p.Elem()
			}
			st, ok := typ.Underlying().(*types.Struct)
			if !ok || i >= st.NumFields() {
				return nil, false
			}
			out = append(out, st.Field(i))
			typ = st.Field(i).Type()
		}
	}
	return out, true
}

// intRange returns the smallest and largest values of the integer type
// typ, with int, uint and uintptr of the given width in bits.
func intRange(typ types.Type, wordBits uint) (lo, hi *big.Int) {
	b, _ := typ.Underlying().(*types.Basic)
	bits, signed := wordBits, b != nil && b.Info()&types.IsUnsigned == 0
	if b != nil {
		switch b.Kind() {
		case types.Int8, types.Uint8:
			bits = 8
		case types.Int16, types.Uint16:
			bits = 16
		case types.Int32, types.Uint32:
			bits = 32
		case types.Int64, types.Uint64:
			bits = 64
		}
	}
	one := big.NewInt(1)
	if !signed {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
	}
	hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
	return new(big.Int).Sub(new(big.Int).Neg(hi), one), hi
}

// constInt returns the value of e when it is an integer constant, or nil.
func (t *translator) constInt(e ast.Expr) *big.Int {
	if e == nil {
		return big.NewInt(1) // no step: 1
	}
	v := t.info.Types[e].Value
	if v == nil || v.Kind() != constant.Int {
		return nil
	}
	n, _ := new(big.Int).SetString(v.ExactString(), 10)
	return n
}

// holds reports whether v op bound holds.
func holds(op token.Token, v, bound *big.Int) bool {
	c := v.Cmp(bound)
	switch op {
	case token.LSS:
		return c < 0
	case token.LEQ:
		return c <= 0
	case token.GTR:
		return c > 0
	}
	return c >= 0
}

// forEnds decides whether go run ends the loop s (header li) where the
// count says, its variable crossing the bound without wrapping around its
// type: proven (constant bounds and step, or a step of 1 with < or >), or
// never (a condition that holds for every value of the type, constant
// bounds and step that wrap around: reported, and false returned), or
// unknown, when li.check asks the emitted code to check it at run time
// (cape.LoopCount). Where the width of int is not known, what is proven
// holds with 32 bits and what is reported with 64.
func (t *translator) forEnds(li *loopInfo, s *ast.ForStmt) bool {
	step, hi := t.constInt(li.step), t.constInt(li.hi)
	up := li.op == token.LSS || li.op == token.LEQ
	strict := li.op == token.LSS || li.op == token.GTR
	switch {
	case step == nil:
		li.check = true // a variable step: its sign and the wrap are known at run time
		return true
	case hi == nil:
		li.check = step.Cmp(big.NewInt(1)) != 0 || !strict
		return true
	}
	min32, max32 := intRange(li.typ, 32)
	min64, max64 := intRange(li.typ, 64)
	if li.op == token.LEQ && hi.Cmp(max64) == 0 || li.op == token.GEQ && hi.Cmp(min64) == 0 {
		t.errorf(s.Cond.Pos(), "the loop condition %s holds for every value of %s (%s): go run never ends this loop, whose variable wraps around; write a condition that can be false", t.text(s.Cond), li.name, t.typeName(li.typ))
		return false
	}
	if lo := t.constInt(li.lo); lo != nil {
		if !holds(li.op, lo, hi) {
			return true // runs no iteration
		}
		// The value after the last iteration: lo ± count*step.
		dist := new(big.Int).Sub(hi, lo)
		if !up {
			dist.Neg(dist)
		}
		if strict {
			dist.Sub(dist, big.NewInt(1))
		}
		q := new(big.Int).Quo(dist, step)
		delta := new(big.Int).Mul(q.Add(q, big.NewInt(1)), step)
		if !up {
			delta.Neg(delta)
		}
		end := new(big.Int).Add(lo, delta)
		switch {
		case end.Cmp(min32) >= 0 && end.Cmp(max32) <= 0:
			return true
		case end.Cmp(min64) < 0 || end.Cmp(max64) > 0:
			t.wrapError(li, s, end, step, up, min64, max64)
			return false
		}
		li.check = true // wraps around with a 32-bit int only
		return true
	}
	// The largest value after an iteration: the last value on the
	// bound's side, plus the step.
	next := new(big.Int).Set(hi)
	switch {
	case up && strict:
		next.Sub(next, big.NewInt(1))
	case !up && strict:
		next.Add(next, big.NewInt(1))
	}
	if up {
		li.check = next.Add(next, step).Cmp(max32) > 0
	} else {
		li.check = next.Sub(next, step).Cmp(min32) < 0
	}
	return true
}

// wrapError reports the loop s, of constant bounds and step, whose
// variable wraps around (to end, out of [lo, hi]) before its condition is
// false, as cape.LoopCount would at run time.
func (t *translator) wrapError(li *loopInfo, s *ast.ForStmt, end, step *big.Int, up bool, lo, hi *big.Int) {
	prev, past := new(big.Int).Sub(end, step), "above "+hi.String()
	if !up {
		prev, past = new(big.Int).Add(end, step), "below "+lo.String()
	}
	size := new(big.Int).Sub(hi, lo)
	size.Add(size, big.NewInt(1))
	wrapped := new(big.Int).Sub(end, lo)
	wrapped.Mod(wrapped, size).Add(wrapped, lo)
	t.errorf(s.Pos(), "the loop does not end as go run runs it: %s (%s) wraps around %s before %s is false (after %s = %s comes %s), so go run goes on with wrapped values: it panics, never ends, or runs other iterations; write a loop whose variable stays in the range of %s",
		li.name, t.typeName(li.typ), past, t.text(s.Cond), li.name, prev, wrapped, t.typeName(li.typ))
}

// loopAt names the loop statement at pos for cape.LoopCount's errors.
func (t *translator) loopAt(pos token.Pos) string {
	p := t.fset.Position(pos)
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.Filename), p.Line, p.Column)
}

// typeName writes typ as messages name it: qualified by package name,
// except for the translated package's own types.
func (t *translator) typeName(typ types.Type) string {
	return types.TypeString(typ, func(p *types.Package) string {
		if p == t.p.types {
			return ""
		}
		return p.Name()
	})
}
