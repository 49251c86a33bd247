package main

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cape-go/cape/internal/gocmd"
)

// goFilesPackage turns go run's and go build's file form (cape run -n 4
// main.go util.go; cmd names the command)
// into the package they name: the files' directory, when they are every Go
// file that builds there (tests aside), so that building the directory
// builds just them. It returns pkg and args unchanged when pkg is not a Go
// file, and an error naming the files left out otherwise.
func goFilesPackage(cmd, pkg string, args []string) (string, []string, error) {
	if !strings.HasSuffix(pkg, ".go") {
		return pkg, args, nil
	}
	if st, err := os.Stat(pkg); err != nil || !st.Mode().IsRegular() {
		return pkg, args, nil
	}
	dir := filepath.Dir(pkg)
	given := []string{filepath.Base(pkg)}
	for len(args) > 0 && strings.HasSuffix(args[0], ".go") && filepath.Dir(args[0]) == dir {
		if _, err := os.Stat(args[0]); err != nil {
			return "", nil, usagef("%s: %v", cmd, err)
		}
		given, args = append(given, filepath.Base(args[0])), args[1:]
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, usagef("%s: %s: %v", cmd, pkg, err)
	}
	var left []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || slices.Contains(given, name) {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err == nil && !ok {
			continue // excluded by its build constraints (//go:build ignore)
		}
		left = append(left, name)
	}
	if len(left) > 0 {
		return "", nil, usagef("%[1]s: cape %[1]s builds a package, and %[2]s's directory %[3]s holds other Go files that go %[1]s %[4]s would leave out (%[5]s): give the directory, with only the program's files in it",
			cmd, pkg, dir, strings.Join(given, " "), strings.Join(left, ", "))
	}
	if !filepath.IsAbs(dir) && dir != "." && !strings.HasPrefix(dir, "."+string(filepath.Separator)) && !strings.HasPrefix(dir, "..") {
		dir = "." + string(filepath.Separator) + dir // a directory, not an import path
	}
	return dir, args, nil
}

// execName is the name go run and go build give the executable of the
// package arg names (dir once goFilesPackage resolved it): the first file's
// name without .go in the file form, else the last element of the
// package's import path, skipping a major-version suffix (/v2). Programs
// print it (os.Args[0] in their usage lines).
func execName(arg, dir string) string {
	if strings.HasSuffix(arg, ".go") {
		return strings.TrimSuffix(filepath.Base(arg), ".go")
	}
	path := filepath.ToSlash(strings.TrimRight(dir, "/"))
	if abs, err := filepath.Abs(dir); err == nil {
		if st, err := os.Stat(abs); err == nil && st.IsDir() {
			path = importPath(abs)
		}
	}
	elems := strings.Split(path, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	if name == "" || name == "." {
		return "prog"
	}
	return name
}

// importPath is the import path of the package in the directory abs: its
// module's path (go.mod's module line) joined with the directory's place
// in the module, or abs itself outside a module.
func importPath(abs string) string {
	root, ok := gocmd.ModuleRoot(abs)
	if !ok {
		return filepath.ToSlash(abs)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	mod := modulePath(b)
	if err != nil || mod == "" {
		return filepath.ToSlash(abs)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." {
		return mod
	}
	return mod + "/" + filepath.ToSlash(rel)
}

// modulePath is the path of a go.mod's module line, or "".
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}
