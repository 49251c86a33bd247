package translate_test

import (
	"context"
	"go/token"
	"go/types"

	"github.com/cape-go/cape/internal/gocmd"
	"github.com/cape-go/cape/translate"
)

func init() {
	translate.SetExportImporter(func(fset *token.FileSet, dir string, paths []string) (types.Importer, error) {
		return gocmd.ExportImporter(context.Background(), fset, dir, paths)
	})
}
