package gocmd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// directivesElsewhere returns a notice for each //cape: directive in the
// packages of the main module that the package in dir imports, directly
// or not: only the package built is translated, so their loops run whole
// on every node. It returns nothing where the go command cannot list them
// (the build reports what is wrong).
func directivesElsewhere(ctx context.Context, dir string) []string {
	var out bytes.Buffer
	err := runGoOut(ctx, dir, []string{"GOWORK=off"}, &out, "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", ".")
	if err != nil {
		return nil
	}
	var notices []string
	for _, d := range strings.Split(out.String(), "\n") {
		if d == "" || d == dir {
			continue
		}
		notices = append(notices, directivesIn(d)...)
	}
	return notices
}

// directivesIn returns a notice for each //cape: directive of the non-test
// Go files of the directory d.
func directivesIn(d string) []string {
	files, err := filepath.Glob(filepath.Join(d, "*.go"))
	if err != nil {
		return nil
	}
	var notices []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte("//cape:")) {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, len(b)+1)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			trimmed := strings.TrimLeft(text, " \t")
			if strings.HasPrefix(trimmed, "//cape:") {
				col := len(text) - len(trimmed) + 1
				notices = append(notices, fmt.Sprintf("cape: notice: %s:%d:%d: %s is in a package the program imports, and cape translates only the main package: the directive is ignored (a loop under it runs whole on every node); move the code into the main package to run it in parallel",
					f, line, col, strings.Fields(trimmed)[0]))
			}
		}
	}
	return notices
}
