package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// boxDecl says how to rewrite the declaration of a boxed variable.
type boxDecl struct {
	id    *ast.Ident
	file  *ast.File
	stmt  ast.Stmt       // the local := or var statement, nil at package level
	spec  *ast.ValueSpec // the var spec, nil for :=
	value ast.Expr       // the initial value, nil for the zero value
	typ   string         // the variable's type, as Go source in file
	// group: a local var statement declaring several variables (var a, b
	// int; var (x = 1; y int)), rewritten whole as one statement each.
	group *ast.DeclStmt
	// defines: a := defining several variables (sum, n := 0.0, 0),
	// rewritten as one statement each.
	defines *ast.AssignStmt
	// pkgGroup: the package-level var declaration whose spec declares
	// several variables (var grid, tmp [64][64]float64), rewritten with
	// one spec each.
	pkgGroup *ast.GenDecl
}

// checkBoxes validates every variable that moves to the arena and decides
// how to rewrite its declaration (place.decls).
func (t *translator) checkBoxes(place *placement) {
	for _, r := range t.regions {
		for _, v := range r.order {
			if b := place.boxes[v]; b != nil && (r.clauseOf[v] == "reduction") {
				t.errorf(r.dir.pos, "reduction variable %s also lives in the arena (written by the parallel region at %s); use a separate variable for the reduction", v.Name(), t.where(b.why))
			}
		}
	}
	for v, b := range place.boxes {
		d := t.boxDecl(v, b, t.defIdentOf(v))
		if d == nil {
			continue
		}
		place.decls[v] = d
	}
}

func (t *translator) boxDecl(v *types.Var, b *box, id *ast.Ident) *boxDecl {
	name := v.Name()
	whyText := "the parallel region at " + t.where(b.why) + " writes it"
	if v.Pkg() != t.p.types || id == nil {
		t.errorf(b.why, "%s cannot be moved to the arena: it is not declared in this package", name)
		return nil
	}
	if b.refused {
		return nil
	}
	d := &boxDecl{id: id, file: t.fileOf[t.fset.File(id.Pos())]}
	switch p := t.parent[id].(type) {
	case *ast.ValueSpec:
		gen, _ := t.parent[p].(*ast.GenDecl)
		ds, local := t.parent[gen].(*ast.DeclStmt)
		switch {
		case local && (len(p.Names) != 1 || len(gen.Specs) != 1):
			if !t.splittable(gen) {
				t.errorf(id.Pos(), "%s must move to the arena (%s): declare it in a var statement of its own", name, whyText)
				return nil
			}
			d.group = ds
		case !local && len(p.Names) != 1:
			// var grid, tmp [64][64]float64 at package level: one spec each.
			if len(p.Values) != 0 && len(p.Values) != len(p.Names) {
				t.errorf(id.Pos(), "%s must move to the arena (%s): declare it in a var statement of its own", name, whyText)
				return nil
			}
			d.pkgGroup = gen
		}
		d.spec = p
		for k, n := range p.Names {
			if n == id && len(p.Values) == len(p.Names) {
				d.value = p.Values[k]
			}
		}
		if local {
			d.stmt = ds
		}
		if p.Type != nil {
			d.typ = t.text(p.Type)
		}
	case *ast.AssignStmt:
		if p.Tok != token.DEFINE || len(p.Lhs) != len(p.Rhs) || !t.inList(p) {
			t.errorf(id.Pos(), "%s must move to the arena (%s): declare it with a statement of its own (x := value or var x T)", name, whyText)
			return nil
		}
		for k, l := range p.Lhs {
			if l == id {
				d.value = p.Rhs[k]
			}
		}
		d.stmt = p
		if len(p.Lhs) > 1 {
			d.defines = p
		}
	case *ast.Field:
		t.errorf(id.Pos(), "%s must move to the arena (%s), but it is a parameter: copy it into a local variable before the region", name, whyText)
		return nil
	default:
		t.errorf(id.Pos(), "%s must move to the arena (%s): declare it with a statement of its own (x := value or var x T)", name, whyText)
		return nil
	}
	if d.typ == "" {
		s, ok := t.typeString(d.file, v.Type())
		if !ok {
			t.errorf(id.Pos(), "%s must move to the arena (%s), but its type %s cannot be named in this file; declare it with an explicit type", name, whyText, v.Type())
			return nil
		}
		d.typ = s
	}
	if clash := t.declClash(d, name); clash != "" {
		t.errorf(id.Pos(), "%s must move to the arena (%s), but an initial value in its declaration refers to another %s: rename one of them", name, whyText, clash)
		return nil
	}
	for _, u := range t.facts.uses[v] {
		if as, ok := t.parent[u].(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			for _, l := range as.Lhs {
				if l == u {
					t.errorf(u.Pos(), "%s must move to the arena (%s): do not redeclare it with :=", name, whyText)
				}
			}
		}
	}
	return d
}

// declClash returns the name of a variable declared outside d's statement
// that a value in it refers to, where the statement declares a variable of
// that name: x := cape.New[T](); *x = value would read the new x in
// value, and in a statement split (group, defines), a later value would
// read an earlier variable. It returns "" if there is none.
func (t *translator) declClash(d *boxDecl, name string) string {
	if d.stmt == nil {
		return ""
	}
	values := []ast.Expr{d.value}
	names := map[string]bool{name: true}
	if d.defines != nil {
		values = d.defines.Rhs
		for _, l := range d.defines.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				names[id.Name] = true
			}
		}
	}
	if d.group != nil {
		values = values[:0]
		for _, sp := range d.group.Decl.(*ast.GenDecl).Specs {
			for _, n := range sp.(*ast.ValueSpec).Names {
				names[n.Name] = true
			}
			values = append(values, sp.(*ast.ValueSpec).Values...)
		}
	}
	clash := ""
	for _, val := range values {
		if val == nil {
			continue
		}
		ast.Inspect(val, func(n ast.Node) bool {
			if i, ok := n.(*ast.Ident); ok && names[i.Name] && t.info.Uses[i] != nil && !t.declaredBy(d.stmt, t.info.Uses[i]) {
				clash = i.Name
			}
			return true
		})
	}
	return clash
}

// splittable reports whether the local var declaration gen can be
// rewritten as one statement per variable: each spec gives a value to
// every name or to none (not var a, b = f()).
func (t *translator) splittable(gen *ast.GenDecl) bool {
	for _, sp := range gen.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 0 && len(vs.Values) != len(vs.Names) {
			return false
		}
	}
	return true
}

// declaredBy reports whether obj is declared by the statement s.
func (t *translator) declaredBy(s ast.Stmt, obj types.Object) bool {
	return obj != nil && s.Pos() <= obj.Pos() && obj.Pos() < s.End()
}

// inList reports whether s is an element of a statement list (not the init
// statement of an if, for or switch).
func (t *translator) inList(s ast.Stmt) bool {
	switch t.parent[s].(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		return true
	}
	return false
}

// typeString prints typ as Go source valid in file f, or reports false if a
// package it needs is not imported there.
func (t *translator) typeString(f *ast.File, typ types.Type) (string, bool) {
	names := map[string]string{}
	for _, imp := range f.Imports {
		if pn, ok := t.info.Implicits[imp].(*types.PkgName); ok {
			names[pn.Imported().Path()] = pn.Name()
		} else if imp.Name != nil {
			if pn, ok := t.info.Defs[imp.Name].(*types.PkgName); ok {
				names[pn.Imported().Path()] = pn.Name()
			}
		}
	}
	ok := true
	s := types.TypeString(typ, func(p *types.Package) string {
		if p == t.p.types {
			return ""
		}
		n, found := names[p.Path()]
		if !found || n == "_" || n == "." {
			ok = false
		}
		return n
	})
	return s, ok
}
