package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoFilesPackage: go run's file form names the files' directory when
// they are all its Go files (tests and files its build constraints leave
// out aside), keeps the program's arguments, and is refused naming the
// files go run would leave out.
func TestGoFilesPackage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", "package main\n\nfunc main() {}\n")
	write("main_test.go", "package main\n")
	write("gen.go", "//go:build ignore\n\npackage main\n")
	main := filepath.Join(dir, "main.go")
	pkg, args, err := goFilesPackage("run", main, []string{"-size", "3"})
	if err != nil || pkg != dir || strings.Join(args, " ") != "-size 3" {
		t.Fatalf("main.go alone: %q %q %v, want %q [-size 3]", pkg, args, err, dir)
	}
	write("util.go", "package main\n")
	if _, _, err := goFilesPackage("run", main, nil); err == nil || !strings.Contains(err.Error(), "would leave out (util.go)") {
		t.Fatalf("util.go left out: %v", err)
	}
	pkg, args, err = goFilesPackage("run", main, []string{filepath.Join(dir, "util.go"), "x"})
	if err != nil || pkg != dir || strings.Join(args, " ") != "x" {
		t.Fatalf("main.go util.go x: %q %q %v", pkg, args, err)
	}
	if pkg, _, _ := goFilesPackage("run", "./examples/matmul", nil); pkg != "./examples/matmul" {
		t.Fatalf("a directory changed to %q", pkg)
	}
}
