package translate

import (
	"go/token"
	"go/types"
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
