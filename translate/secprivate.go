package translate

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
)

// Private copies in parallel sections. A node declares one copy of each
// private, firstprivate and lastprivate variable for all the sections it
// runs: zero, or for a firstprivate one the variable's value from before
// the region. For a lastprivate variable the node that runs the last
// section hands its copy over (unless region.condLast: the node of the
// latest section that assigned it). go run runs every section, in order,
// on the one variable. So:
//
//   - a section that uses a copy before assigning it (coveredBefore, in
//     the section) reads zero, its value from before the region, or what
//     the sections that node ran before left (the master re-runs a lost
//     node's sections after its own), where go run reads its value from
//     before the region or what the sections before it left. Refused,
//     unless the copy starts from that value (firstprivate) and no other
//     section writes it.
//   - a lastprivate variable that a section writes other than by a whole
//     assignment v = e (an element, a field, a pointer method, copy, &v
//     handed to a function) comes out as the last section's copy, whose
//     parts that section did not assign hold zero (its value from before,
//     for firstprivate) or what that node's earlier sections left, where
//     go run's keeps what the earlier sections, or the code before, left
//     there. Refused, unless the last section assigns it whole before
//     anything else (assignsWholeFirst), or it is firstprivate too and
//     only the last section writes it.

// sectionCopies refuses, for a private, firstprivate or lastprivate
// variable v of r, a parallel sections block, the uses whose values would
// differ from go run's; it reports whether it refused one.
func (t *translator) sectionCopies(r *region, v *types.Var, clause string) bool {
	if r.dir.kind != dirSections || len(r.sections) == 0 {
		return false
	}
	return t.sectionReadFirst(r, v, clause) || clause == "lastprivate" && t.sectionPartialLast(r, v)
}

// sectionReadFirst refuses the first use of v in a section that reads a
// value the section has not assigned (sectionRead), unless v's copy
// starts from its value and no other section writes v.
func (t *translator) sectionReadFirst(r *region, v *types.Var, clause string) bool {
	fromEntry := clause == "firstprivate" || r.firstLast[v]
	listed, holds := clause, "zero"
	if fromEntry {
		holds = "its value from before the region"
		if clause == "lastprivate" {
			listed = "firstprivate and lastprivate"
		}
	}
	for k, sec := range r.sections {
		before, after := t.otherSectionWrites(r, v, k)
		if fromEntry && before == nil && after == nil {
			continue
		}
		u := t.sectionRead(r, v, sec)
		if u == nil {
			continue
		}
		goRun, fix := "its value from before the region", "assign it at the start of the section, or list it in firstprivate"
		switch {
		case before != nil:
			goRun = fmt.Sprintf("what section %d left there (it writes %s at %s)", t.sectionOf(r, before), v.Name(), t.where(before.Pos()))
			fix = "the sections depend on each other through it: assign it at the start of this section, or run them in order"
		case fromEntry:
			fix = fmt.Sprintf("section %d writes it too (at %s), and a node that runs that section first starts this one from what it left; assign it at the start of this section, or read a copy made before the region (%s0 := %s)", t.sectionOf(r, after), t.where(after.Pos()), v.Name(), v.Name())
		case clause == "lastprivate":
			fix += " too"
		}
		t.errorf(u.Pos(), "%s is %s in the parallel sections, but section %d uses %s here before assigning it: the node's copy holds %s, or what the sections that node ran before left, where go run's one variable holds %s; %s",
			v.Name(), listed, k, t.useText(u), holds, goRun, fix)
		return true
	}
	return false
}

// otherSectionWrites returns the first write of v (mayWrite) in a section
// before section k, and the first in a section after it; nil where there
// is none.
func (t *translator) otherSectionWrites(r *region, v *types.Var, k int) (before, after *ast.Ident) {
	for j, sec := range r.sections {
		if w := t.writesIn(v, sec); j != k && len(w) > 0 {
			if j < k && before == nil {
				before = w[0]
			} else if j > k && after == nil {
				after = w[0]
			}
		}
	}
	return before, after
}

// sectionOf returns the index of the section of r that holds n, or -1.
func (t *translator) sectionOf(r *region, n ast.Node) int {
	return slices.IndexFunc(r.sections, func(s *ast.BlockStmt) bool { return within(n.Pos(), s) })
}

// sectionRead returns the first use of v in the section sec that reads
// a value sec has not assigned before it: a use other than a plain
// assignment of v or of a part of v (elemPlace), or &v handed to a
// function that assigns it (outParam), where the statements before it
// in the section (coveredBefore) may not assign v whole, or the part it
// reads; nil if there is none. As in a loop, an array's elements written
// in an inner loop or in a function literal are not followed: they are
// taken as assigning the array (elementCarry); a scalar or a struct so
// assigned is not assigned.
func (t *translator) sectionRead(r *region, v *types.Var, sec *ast.BlockStmt) *ast.Ident {
	sr := *r
	sr.body = sec // the section's statements, for coveredBefore and elemPlace
	_, isArray := v.Type().Underlying().(*types.Array)
	var uses []*ast.Ident
	for _, u := range t.facts.uses[v] {
		if within(u.Pos(), sec) && !t.lengthOnly(u) && !t.identityUpdate(u) {
			uses = append(uses, u)
		}
	}
	slices.SortFunc(uses, func(a, b *ast.Ident) int { return int(a.Pos()) - int(b.Pos()) })
	for _, u := range uses {
		key, plain := t.elemPlace(&sr, u)
		if plain || t.outParam(u) || t.assignsWhole(u, v) {
			lit := t.enclosingLit(u)
			if isArray && (lit != nil && within(lit.Pos(), sec) || t.inInnerLoop(&sr, u)) {
				return nil // a buffer filled by a loop or a function literal: not followed
			}
			continue
		}
		if !t.coveredBefore(&sr, v, u, key) && !t.headerAssigns(&sr, v, u, key) {
			return u
		}
	}
	return nil
}

// headerAssigns reports whether a statement around the use u, in r's
// body, assigns the place key of v (or one holding it) in its header
// before u runs: the init of a for, an if or a switch (for v = 0; v < n;
// v++), or a range loop's key or value, u in its body (for _, v = range
// xs).
func (t *translator) headerAssigns(r *region, v *types.Var, u *ast.Ident, key elemKey) bool {
	for cur := t.parent[u]; cur != nil && cur != ast.Node(r.body); cur = t.parent[cur] {
		var init ast.Stmt
		switch s := cur.(type) {
		case *ast.ForStmt:
			init = s.Init
		case *ast.IfStmt:
			init = s.Init
		case *ast.SwitchStmt:
			init = s.Init
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if id, ok := e.(*ast.Ident); ok && within(u.Pos(), s.Body) && t.info.Uses[id] == v && t.assignsWhole(id, v) {
					return true
				}
			}
		}
		if init != nil && !within(u.Pos(), init) {
			for j := 0; j <= len(key); j++ {
				if t.placeAssigned(r, v, []ast.Stmt{init}, key[:j], 0) {
					return true
				}
			}
		}
	}
	return false
}

// sectionPartialLast refuses, for a lastprivate variable v of r, a
// parallel sections block, a write of v other than a whole assignment
// (v = e), unless the last section assigns v whole before anything else
// (assignsWholeFirst), or v's copy starts from its value (firstprivate
// too) and no other section writes v. It reports whether it refused one.
// Such a write is not noted for a conditional hand-over (condAssignable
// sees whole assignments only), so v is handed over by the node of the
// last section.
func (t *translator) sectionPartialLast(r *region, v *types.Var) bool {
	writes := t.writesIn(v, r.body)
	if !slices.ContainsFunc(writes, func(u *ast.Ident) bool { return !t.assignsWhole(u, v) }) {
		return false // whole assignments only: the last section's copy, or condLast
	}
	delete(r.condLast, v) // its notes would miss the other writes
	k := len(r.sections) - 1
	last := r.sections[k]
	if t.assignsWholeFirst(r, v, last.List) {
		return false
	}
	before, _ := t.otherSectionWrites(r, v, k)
	if before == nil && r.firstLast[v] {
		return false // the copy starts from its value, and only the last section changes it
	}
	holds, goRun := "zero", "its value from before the region"
	if r.firstLast[v] {
		holds = "its value from before the region"
	}
	fix := t.wholeFix(v, before != nil)
	at, says := before, ""
	if lw := t.writesIn(v, last); len(lw) > 0 {
		at, says = lw[0], fmt.Sprintf("the last section (section %d) writes it here (%s) without assigning it whole first", k, t.text(t.stmtOf(lw[0])))
	} else {
		says = fmt.Sprintf("section %d writes it here (%s), and the last section (section %d) does not assign it whole", t.sectionOf(r, before), t.text(t.stmtOf(before)), k)
	}
	switch {
	case at == before:
		goRun = "what it wrote there"
	case before != nil:
		goRun = fmt.Sprintf("what section %d wrote (%s at %s)", t.sectionOf(r, before), t.text(t.stmtOf(before)), t.where(before.Pos()))
	}
	t.errorf(at.Pos(), "%s is lastprivate in the parallel sections, but %s: the node that ran the last section hands back its copy, in which what that section did not assign holds %s, or what that node's earlier sections left, where go run's one variable keeps %s; %s",
		v.Name(), says, holds, goRun, fix)
	return true
}

// wholeFix says how to hand v over as go run leaves it, for
// sectionPartialLast's message: assign it whole first in the last
// section; or, where an earlier section writes it (shared), keep it
// shared, an array's elements or a struct's fields written by different
// sections; or list it in firstprivate too.
func (t *translator) wholeFix(v *types.Var, shared bool) string {
	fix, part := "assign it whole at the start of the last section", ""
	switch v.Type().Underlying().(type) {
	case *types.Array:
		part = "different elements of a shared array"
	case *types.Struct:
		part = "different fields of a shared struct"
	}
	if part != "" {
		fix += fmt.Sprintf(" (%s = %s{})", v.Name(), types.TypeString(v.Type(), types.RelativeTo(v.Pkg())))
	}
	switch {
	case shared && part != "":
		return fix + ", or do not list it in lastprivate: sections may write " + part
	case shared:
		return fix + ", or run the sections in order"
	}
	return fix + ", or list it in firstprivate too"
}
