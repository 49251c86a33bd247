package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// A reduction variable's writes in its region: each node's copy starts
// from the operator's identity and the copies are combined with the
// operator at the end, which is go run's value only if every write in the
// region is the operator's own update of the variable (sum += x, sum =
// sum + x, sum = x + sum, sum++, best = max(best, x), the if form of max
// and min, h[k] += x element by element), x not using the variable.
// Any other write (sum = x, sum = f(sum), sum *= x under +) is refused
// where it is, naming the forms allowed.

// reductionWrite checks stmt, a statement of r's body that writes the
// reduction variable v (writesReduction), and refuses it unless it is an
// update by v's reduction operator. It reports whether it refused.
func (t *translator) reductionWrite(r *region, v *types.Var, stmt ast.Stmt) bool {
	op := r.redOp[v]
	if !t.reductionUpdate(v, op, stmt) {
		uses := "e does not use"
		if reductionKind(v.Type()) != "" {
			uses = "neither i nor e uses"
		}
		t.errorf(stmt.Pos(), "%s is a %s reduction variable of the parallel %s, but assigned here other than by its update: each node's copy starts from the identity of %s and the copies are combined with %s after the %s, so this write gives another value than go run's; update it only as %s, where %s %s",
			v.Name(), op, regionWord(r), op, op, regionWord(r), updateForms(v, op), uses, v.Name())
		return true
	}
	if lit := t.enclosingLit(stmt); lit != nil && within(lit.Pos(), r.body) {
		t.errorf(stmt.Pos(), "%s is a %s reduction variable of the parallel %s, but updated here in a function literal, which may run at another time than its iteration (stored, deferred or in a goroutine) and then updates another copy than the node's, or none; update it in the %s itself",
			v.Name(), op, regionWord(r), map[dirKind]string{dirFor: "loop body", dirSections: "section"}[r.dir.kind])
		return true
	}
	if why := t.shortCircuit(v, op, stmt); why != "" {
		t.errorf(stmt.Pos(), "%s is a %s reduction variable of the parallel %s, updated here as %s: go run skips %s once %s is %s, where each node skips it only once its own copy is; write it the other way round (%s = %s %s %s)",
			v.Name(), op, regionWord(r), types.ExprString(ast.Unparen(stmt.(*ast.AssignStmt).Rhs[0])), why, v.Name(), map[string]string{"&&": "false", "||": "true"}[op], types.ExprString(stmt.(*ast.AssignStmt).Lhs[0]), why, op, types.ExprString(stmt.(*ast.AssignStmt).Lhs[0]))
		return true
	}
	return false
}

// regionWord names r's kind: loop or sections.
func regionWord(r *region) string {
	if r.dir.kind == dirSections {
		return "sections"
	}
	return "loop"
}

// updateForms lists the updates the reduction operator op allows of v.
func updateForms(v *types.Var, op string) string {
	s := v.Name()
	if reductionKind(v.Type()) != "" {
		s += "[i]"
	}
	var forms string
	switch op {
	case "+", "-":
		forms = "s += e, s -= e, s = s + e, s = e + s, s = s - e, s++ or s--"
	case "&&", "||":
		forms = "s = e " + op + " s, s = s " + op + " e or s = " + map[string]string{"&&": "false", "||": "true"}[op]
	case "max", "min":
		cmp := map[string]string{"max": ">", "min": "<"}[op]
		forms = "s = " + op + "(s, e), s = math." + strings.ToUpper(op[:1]) + op[1:] + "(s, e) or, on an integer, if e " + cmp + " s { s = e }"
	default:
		forms = "s " + op + "= e, s = s " + op + " e or s = e " + op + " s"
	}
	return strings.NewReplacer("s", s).Replace(forms)
}

// writesReduction reports whether stmt, the innermost statement around a
// use of v, assigns v or an element of it.
func (t *translator) writesReduction(stmt ast.Stmt, v *types.Var) bool {
	var targets []ast.Expr
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		targets = s.Lhs // v is declared outside the body: never a := target
	case *ast.IncDecStmt:
		targets = []ast.Expr{s.X}
	case *ast.RangeStmt:
		if s.Tok == token.ASSIGN {
			targets = []ast.Expr{s.Key, s.Value}
		}
	}
	for _, e := range targets {
		if t.rootVar(e) == v {
			return true
		}
	}
	return false
}

// reductionUpdate reports whether stmt updates v by the reduction
// operator op: its target is v (or, for an array or slice, v[k], k not
// using v), and it is an IncDecStmt under + or -, an op= assignment whose
// operand does not use v, an assignment v = <v op e> (reductionOperand),
// v = max(v, e) or v = min(v, e), or the assignment of the if form of max
// and min (extremumIf).
func (t *translator) reductionUpdate(v *types.Var, op string, stmt ast.Stmt) bool {
	switch s := stmt.(type) {
	case *ast.IncDecStmt:
		return (op == "+" || op == "-") && t.reductionTarget(v, s.X)
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 || !t.reductionTarget(v, s.Lhs[0]) {
			return false
		}
		target, rhs := s.Lhs[0], s.Rhs[0]
		if s.Tok != token.ASSIGN {
			return opAssigns(op, s.Tok) && !t.namesVar(rhs, v)
		}
		if t.reductionOperand(v, target, op, rhs) || t.extremumCall(v, target, op, rhs) || t.absorbing(op, rhs) {
			return true
		}
		return t.extremumAssign(v, op, s)
	}
	return false
}

// absorbing reports whether rhs is the constant that op's result is
// whatever the other operand (true for ||, false for &&): found = true
// under || is found = found || true.
func (t *translator) absorbing(op string, rhs ast.Expr) bool {
	c := t.info.Types[rhs].Value
	if c == nil || c.Kind() != constant.Bool {
		return false
	}
	return op == "||" && constant.BoolVal(c) || op == "&&" && !constant.BoolVal(c)
}

// reductionTarget reports whether e, the target of a write, is v (a
// number or boolean) or v[k] (an array or slice, reduced element by
// element), k not using v.
func (t *translator) reductionTarget(v *types.Var, e ast.Expr) bool {
	e = ast.Unparen(e)
	if reductionKind(v.Type()) == "" {
		id, ok := e.(*ast.Ident)
		return ok && t.info.Uses[id] == v
	}
	ix, ok := e.(*ast.IndexExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(ix.X).(*ast.Ident)
	return ok && t.info.Uses[id] == v && !t.namesVar(ix.Index, v)
}

// sameTarget reports whether e reads what target, a reductionTarget of v,
// writes: v itself, or v[k] with the same k, an expression that gives
// the same value when evaluated twice (pureExpr).
func (t *translator) sameTarget(v *types.Var, target, e ast.Expr) bool {
	target, e = ast.Unparen(target), ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok {
		_, whole := target.(*ast.Ident)
		return whole && t.info.Uses[id] == v
	}
	ix, ok := e.(*ast.IndexExpr)
	tx, tok := target.(*ast.IndexExpr)
	if !ok || !tok {
		return false
	}
	id, ok := ast.Unparen(ix.X).(*ast.Ident)
	return ok && t.info.Uses[id] == v && t.pureExpr(tx.Index) && types.ExprString(ix.Index) == types.ExprString(tx.Index)
}

// opAssigns reports whether the assignment operator tok updates a
// variable by the reduction operator op: += and -= under + and -, *=
// under *, &= (and &^=) under &, |= under |, ^= under ^.
func opAssigns(op string, tok token.Token) bool {
	switch op {
	case "+", "-":
		return tok == token.ADD_ASSIGN || tok == token.SUB_ASSIGN
	case "*":
		return tok == token.MUL_ASSIGN
	case "&":
		return tok == token.AND_ASSIGN || tok == token.AND_NOT_ASSIGN
	case "|":
		return tok == token.OR_ASSIGN
	case "^":
		return tok == token.XOR_ASSIGN
	}
	return false
}

// chainOps are, for each reduction operator, the binary operators of an
// expression through which the variable it updates may be reached
// (s + a - b under +), and whether the variable may be their right
// operand too (e * s; not a - s).
var chainOps = map[string]map[token.Token]bool{
	"+": {token.ADD: true, token.SUB: false}, "-": {token.ADD: true, token.SUB: false},
	"*": {token.MUL: true}, "&": {token.AND: true}, "|": {token.OR: true}, "^": {token.XOR: true},
	"&&": {token.LAND: true}, "||": {token.LOR: true},
}

// reductionOperand reports whether e is target (sameTarget), or an
// expression of op's chainOps with target once as an operand (s + a + b,
// a*b + s, s - a under +), where nothing else uses v.
func (t *translator) reductionOperand(v *types.Var, target ast.Expr, op string, e ast.Expr) bool {
	if t.sameTarget(v, target, e) {
		return true
	}
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	right, ok := chainOps[op][b.Op]
	if !ok {
		return false
	}
	if !t.namesVar(b.Y, v) {
		return t.reductionOperand(v, target, op, b.X)
	}
	return right && !t.namesVar(b.X, v) && t.reductionOperand(v, target, op, b.Y)
}

// extremumCall reports whether e is max(...) under reduction(max:v) (min
// under min) with target as one argument, nothing else using v.
func (t *translator) extremumCall(v *types.Var, target ast.Expr, op string, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || op != "max" && op != "min" {
		return false
	}
	if !t.isExtremum(call, op) {
		return false
	}
	found := 0
	for _, a := range call.Args {
		switch {
		case t.sameTarget(v, target, a):
			found++
		case t.namesVar(a, v):
			return false
		}
	}
	return found == 1
}

// isExtremum reports whether call calls the builtin max or min (op), or
// math.Max or math.Min, which give the same results on float64 (NaN if
// either is NaN; +0 of +0 and -0 under max, -0 under min).
func (t *translator) isExtremum(call *ast.CallExpr, op string) bool {
	if b, ok := t.info.Uses[calleeIdent(call)].(*types.Builtin); ok {
		return b.Name() == op
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := t.info.Uses[sel.Sel].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "math" && fn.Name() == map[string]string{"max": "Max", "min": "Min"}[op]
}

// extremumAssign reports whether as, v = e, is the body of an if
// statement of the if form of max and min (extremumIf).
func (t *translator) extremumAssign(v *types.Var, op string, as *ast.AssignStmt) bool {
	block, ok := t.parent[as].(*ast.BlockStmt)
	if !ok {
		return false
	}
	ifs, ok := t.parent[block].(*ast.IfStmt)
	if !ok {
		return false
	}
	cmps := []ast.Expr{ifs.Cond}
	if and, ok := ifs.Cond.(*ast.BinaryExpr); ok && and.Op == token.LAND {
		cmps = []ast.Expr{and.X, and.Y} // a guard beside the comparison
	}
	for _, c := range cmps {
		cmp, ok := c.(*ast.BinaryExpr)
		if !ok {
			continue
		}
		for _, side := range []ast.Expr{cmp.X, cmp.Y} {
			if id, ok := side.(*ast.Ident); ok && t.info.Uses[id] == v && t.extremumIf(id, v, op) == ifs {
				return true
			}
		}
	}
	return false
}

// shortCircuit returns, for an update s = s && e (s = s || e) whose e may
// do something (a call other than len, cap or a conversion, a receive:
// not pureExpr), the text of e, which go run stops evaluating once s is
// false (true) over the whole loop, each node only once its copy is.
// Empty otherwise.
func (t *translator) shortCircuit(v *types.Var, op string, stmt ast.Stmt) string {
	as, ok := stmt.(*ast.AssignStmt)
	if !ok || op != "&&" && op != "||" || as.Tok != token.ASSIGN {
		return ""
	}
	for e := ast.Unparen(as.Rhs[0]); ; {
		b, ok := e.(*ast.BinaryExpr)
		if !ok {
			return ""
		}
		if t.namesVar(b.X, v) && !t.pureExpr(b.Y) {
			return types.ExprString(b.Y)
		}
		e = ast.Unparen(b.X)
		if !t.namesVar(b.X, v) {
			e = ast.Unparen(b.Y)
		}
	}
}
