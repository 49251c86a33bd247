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
	"path/filepath"
	"strings"
)

// ExportImporter returns an importer that reads compiler export data for
// paths and their dependencies, as resolved by `go list -export -deps` run
// in dir (so module, vendor and replace settings apply). It runs the go
// command once, building what is not in the build cache. The importer is
// a translate.SourceImporter: it also names the Go files of each package
// outside the standard library.
func ExportImporter(ctx context.Context, fset *token.FileSet, dir string, paths []string) (types.Importer, error) {
	exports := map[string]string{}
	sources := map[string][]string{}
	if len(paths) > 0 {
		const format = "{{if .Export}}{{.ImportPath}}\t{{.Export}}\t{{.Standard}}\t{{.Dir}}\t{{join .GoFiles \"\\t\"}}\t{{join .CgoFiles \"\\t\"}}{{end}}"
		args := append([]string{"list", "-e", "-export", "-deps", "-f", format}, paths...)
		var out bytes.Buffer
		if err := runGoOut(ctx, dir, nil, &out, args...); err != nil {
			return nil, fmt.Errorf("translate: %w", err)
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			f := strings.Split(sc.Text(), "\t")
			if len(f) < 4 {
				continue
			}
			exports[f[0]] = f[1]
			if f[2] == "true" {
				continue
			}
			for _, name := range f[4:] {
				if name != "" {
					sources[f[0]] = append(sources[f[0]], filepath.Join(f[3], name))
				}
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
	return &sourceImporter{Importer: importer.ForCompiler(fset, "gc", lookup), sources: sources}, nil
}

// sourceImporter is an export-data importer that also knows where the
// source of each package outside the standard library is.
type sourceImporter struct {
	types.Importer
	sources map[string][]string
}

// Packages returns the import paths of the packages outside the
// standard library that go list named.
func (s *sourceImporter) Packages() []string {
	out := make([]string, 0, len(s.sources))
	for p := range s.sources {
		out = append(out, p)
	}
	return out
}

// Sources returns the Go files of the package at path (cgo's included),
// or false for a package of the standard library or one go list did not
// name.
func (s *sourceImporter) Sources(path string) ([]string, bool) {
	files, ok := s.sources[path]
	return files, ok
}

// newImporter is ExportImporter for translate.Config.NewImporter.
func newImporter(ctx context.Context) func(*token.FileSet, string, []string) (types.Importer, error) {
	return func(fset *token.FileSet, dir string, paths []string) (types.Importer, error) {
		return ExportImporter(ctx, fset, dir, paths)
	}
}
