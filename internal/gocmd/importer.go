package gocmd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"strings"
)

// ExportImporter returns an importer that reads compiler export data for
// paths and their dependencies, as resolved by `go list -export -deps` run
// in dir (so module, vendor and replace settings apply). It runs the go
// command once, building what is not in the build cache.
func ExportImporter(ctx context.Context, fset *token.FileSet, dir string, paths []string) (types.Importer, error) {
	exports := map[string]string{}
	if len(paths) > 0 {
		args := append([]string{"list", "-e", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}\t{{.Export}}{{end}}"}, paths...)
		var out bytes.Buffer
		if err := runGoOut(ctx, dir, nil, &out, args...); err != nil {
			return nil, fmt.Errorf("translate: %w", err)
		}
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			if path, file, ok := strings.Cut(sc.Text(), "\t"); ok {
				exports[path] = file
			}
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q (is it imported by the package and buildable?)", path)
		}
		return os.Open(file)
	}
	return importer.ForCompiler(fset, "gc", lookup), nil
}

// newImporter is ExportImporter for translate.Config.NewImporter.
func newImporter(ctx context.Context) func(*token.FileSet, string, []string) (types.Importer, error) {
	return func(fset *token.FileSet, dir string, paths []string) (types.Importer, error) {
		return ExportImporter(ctx, fset, dir, paths)
	}
}
