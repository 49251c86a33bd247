package translate

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
)

// A point is a //cape:checkpoint directive: a place in the program's
// sequential code where its live state is the arena plus the variables the
// directive names. It becomes a call of cape.Checkpoint before the
// statement it is attached to (see package cape, durable_point_unsafe.go).
type point struct {
	dir  *directive
	stmt ast.Stmt
	vars []*types.Var
	// loop is the loop around the point (nil: none), and called the
	// bodies of the package's functions it calls (pointsLive).
	loop   ast.Stmt
	called []ast.Node
}

// checkPoints resolves each point's variables and refuses a point inside a
// parallel region or naming what cannot be saved as raw bytes.
func (t *translator) checkPoints(dirs *directives) {
	for _, p := range dirs.points {
		for _, r := range dirs.regions {
			if r.stmt != p.stmt && r.stmt.Pos() <= p.stmt.Pos() && p.stmt.End() <= r.stmt.End() {
				t.errorf(p.dir.pos, "//cape:checkpoint inside the parallel region at %s: a checkpoint point belongs to the sequential code", t.regionName(r))
			}
		}
		scope := t.scopeAt(p.stmt)
		for _, a := range p.dir.vars {
			var obj types.Object
			if scope != nil {
				_, obj = scope.LookupParent(a.text, p.stmt.Pos())
			}
			v, ok := obj.(*types.Var)
			if !ok {
				t.errorf(a.pos, "//cape:checkpoint: %s is not a variable in scope here", a.text)
				continue
			}
			if why := savable(v.Type()); why != "" {
				t.errorf(a.pos, "//cape:checkpoint: %s (%s) cannot be saved: %s", a.text, v.Type(), why)
				continue
			}
			p.vars = append(p.vars, v)
		}
	}
}

// scopeAt returns the innermost scope holding s.
func (t *translator) scopeAt(s ast.Stmt) *types.Scope {
	for n := ast.Node(s); n != nil; n = t.parent[n] {
		if sc := t.info.Scopes[n]; sc != nil {
			return sc.Innermost(s.Pos())
		}
	}
	return t.p.types.Scope().Innermost(s.Pos())
}

// savable says why a value of type typ cannot be saved as raw bytes (its
// pointers must point into the arena: slices of numbers, which the
// translator places there, are fine), or "".
func savable(typ types.Type) string {
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return "a string points outside the arena"
		}
		return ""
	case *types.Slice:
		// The elements lie in the arena, where a restart's image holds
		// them and the arena's pointer check reads them: rows of a grid
		// ([][]float64) are saved as the slice of their headers.
		why := savable(u.Elem())
		if why == "" || strings.HasPrefix(why, "its elements") {
			return why
		}
		return "its elements: " + why
	case *types.Array:
		return savable(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if why := savable(u.Field(i).Type()); why != "" {
				return fmt.Sprintf("field %s: %s", u.Field(i).Name(), why)
			}
		}
		return ""
	}
	return "only numbers, booleans, arrays, structs of them and slices of them can be saved"
}

// emitPoints inserts each point's cape.Checkpoint call before its
// statement. A variable moved to the arena is left out: the image holds it.
func (t *emitter) emitPoints(outs map[*ast.File]*fileOut) {
	for _, p := range t.points {
		fo := t.outAt(outs, p.stmt.Pos())
		pos := t.fset.Position(p.dir.pos)
		args := []string{fmt.Sprintf("%q", fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column))}
		for _, v := range p.vars {
			if t.place.boxes[v] == nil {
				args = append(args, "&"+v.Name())
			}
		}
		var notes strings.Builder
		for _, typ := range t.loopAllocTypes(fo.f, p) {
			fmt.Fprintf(&notes, "%s.NoteType[%s]()\n", fo.cape(), typ)
		}
		fo.ed.insert(fo.off(p.stmt.Pos()), fmt.Sprintf("%s%s.Checkpoint(%s)%s\n", notes.String(), fo.cape(), strings.Join(args, ", "), t.lineDirBefore(fo, p.stmt.Pos())))
	}
}

// loopAllocTypes returns the element types, spelled in file f, of the
// arena allocations that the loop around point p makes, in its
// body or in the package's functions it calls: a restart that adopts an
// image's allocations (cape.NoteType, adoptAllocations) must know each
// type before the point's first pass has made one. Types that cannot be
// named at the point (declared in a function, or not imported by f) are
// left out; a restart needing one says so.
func (t *emitter) loopAllocTypes(f *ast.File, p *point) []string {
	if p.loop == nil {
		return nil
	}
	in := append([]ast.Node{p.loop}, p.called...)
	within := func(n ast.Node) bool {
		return slices.ContainsFunc(in, func(b ast.Node) bool { return b.Pos() <= n.Pos() && n.Pos() < b.End() })
	}
	seen := map[string]bool{}
	var out []string
	add := func(typ types.Type) {
		if typ == nil || !packageLevel(typ) {
			return
		}
		if name, ok := t.typeString(f, typ); ok && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for c := range t.place.makes {
		if !within(c) {
			continue
		}
		switch typ := t.info.TypeOf(c.Args[0]); calleeIdent(c).Name {
		case "new":
			add(typ)
		default:
			if sl, ok := typ.Underlying().(*types.Slice); ok {
				add(sl.Elem())
			}
		}
	}
	for lit := range t.place.lits {
		if within(lit) {
			add(t.info.TypeOf(lit.X))
		}
	}
	slices.Sort(out)
	return out
}

// packageLevel reports whether typ names only types declared at package
// level (or predeclared), so that it can be spelled anywhere in its
// package.
func packageLevel(typ types.Type) bool {
	return !mentionsType(typ, func(t types.Type) bool {
		switch u := t.(type) {
		case *types.TypeParam:
			return true
		case *types.Named:
			o := u.Obj()
			return o.Pkg() != nil && o.Parent() != o.Pkg().Scope()
		}
		return false
	}, map[types.Type]bool{})
}
