package translate

import (
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
)

// exportImporter is the tests' importer: package gocmd's ExportImporter,
// which cape uses. Package gocmd imports this package, so its internal
// tests cannot import gocmd; the external test package sets this instead
// (importer_ext_test.go), before any test runs.
var exportImporter func(fset *token.FileSet, dir string, paths []string) (types.Importer, error)

// SetExportImporter lets the external test package install exportImporter.
func SetExportImporter(f func(*token.FileSet, string, []string) (types.Importer, error)) {
	exportImporter = f
}

// importerFor returns an exportImporter for the cape runtime, the packages
// extra names and every package that files import (a file that does not
// parse is passed over), with one go list run.
func importerFor(files []string, extra ...string) (types.Importer, error) {
	paths := map[string]bool{capePath: true}
	for _, p := range extra {
		paths[p] = true
	}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, s := range af.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			paths[p] = true
		}
	}
	return exportImporter(token.NewFileSet(), ".", slices.Sorted(maps.Keys(paths)))
}
