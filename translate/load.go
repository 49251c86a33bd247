package translate

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// capePath is the import path of the runtime API that generated code calls.
const capePath = "github.com/cape-go/cape/cape"

// A pkg is one parsed and type-checked package.
type pkg struct {
	fset  *token.FileSet
	name  string
	files []*ast.File
	srcs  map[*ast.File][]byte
	paths map[*ast.File]string
	types *types.Package
	info  *types.Info
}

// goFiles lists the package's Go files in dir (build constraints applied,
// tests excluded), joined to dir.
func goFiles(dir string) ([]string, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("translate: %w", err)
	}
	if len(bp.CgoFiles) > 0 {
		return nil, fmt.Errorf("translate: %s: cgo packages are not supported", dir)
	}
	var out []string
	for _, f := range bp.GoFiles {
		out = append(out, filepath.Join(dir, f))
	}
	return out, nil
}

// HasDirectives reports whether any Go file of the package in dir contains a
// //cape: directive. It reads the files but does not parse them.
func HasDirectives(dir string) (bool, error) {
	paths, err := goFiles(dir)
	if err != nil {
		return false, err
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return false, fmt.Errorf("translate: %w", err)
		}
		if bytes.Contains(b, []byte("//cape:")) || bytes.Contains(b, []byte("// cape:")) {
			return true, nil
		}
	}
	return false, nil
}

// parseFiles parses the named files; src, when not nil, supplies contents.
func parseFiles(fset *token.FileSet, paths []string, src map[string][]byte) (*pkg, ErrorList, error) {
	p := &pkg{fset: fset, srcs: map[*ast.File][]byte{}, paths: map[*ast.File]string{}}
	var diags ErrorList
	for _, path := range paths {
		b, ok := src[path]
		if !ok {
			var err error
			if b, err = os.ReadFile(path); err != nil {
				return nil, nil, fmt.Errorf("translate: %w", err)
			}
		}
		f, err := parser.ParseFile(fset, path, b, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			diags = append(diags, scanErrors(err)...)
			continue
		}
		if p.name == "" {
			p.name = f.Name.Name
		}
		p.files = append(p.files, f)
		p.srcs[f] = b
		p.paths[f] = path
	}
	return p, diags, nil
}

func scanErrors(err error) ErrorList {
	var list scanner.ErrorList
	if errors.As(err, &list) {
		var out ErrorList
		for _, e := range list {
			out = append(out, Diagnostic{Pos: e.Pos, Msg: e.Msg})
		}
		return out
	}
	return ErrorList{{Msg: err.Error()}}
}

// check type-checks p with imp.
func (p *pkg) check(imp types.Importer) ErrorList {
	var diags ErrorList
	conf := types.Config{
		Importer: imp,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				diags = append(diags, Diagnostic{Pos: te.Fset.Position(te.Pos), Msg: te.Msg})
				return
			}
			diags = append(diags, Diagnostic{Msg: err.Error()})
		},
	}
	p.info = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
		Implicits:  map[ast.Node]types.Object{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	p.types, _ = conf.Check(p.name, p.fset, p.files, p.info)
	return diags
}

// imports returns the sorted import paths of p's files.
func (p *pkg) imports() []string {
	set := map[string]bool{}
	for _, f := range p.files {
		for _, s := range f.Imports {
			if path, err := strconv.Unquote(s.Path.Value); err == nil && path != "C" {
				set[path] = true
			}
		}
	}
	var out []string
	for path := range set {
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}
