package gocmd

import (
	"path/filepath"
	"testing"
)

// TestProgramDigest: the digest of a module's program is the same for the
// same files, changes when a Go file of the module or the translation of
// one changes, and leaves out tests and testdata.
func TestProgramDigest(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) { writeFile(t, root, rel, text) }
	write("go.mod", "module m\n\ngo 1.26\n")
	write("cmd/main.go", "package main\n\nfunc main() {}\n")
	write("lib/lib.go", "package lib\n")
	digest := func(replace map[string]string) string {
		d, err := programDigest(filepath.Join(root, "cmd"), replace)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	first := digest(nil)
	write("cmd/main_test.go", "package main\n")
	write("testdata/x.go", "package x\n")
	if d := digest(nil); d != first {
		t.Errorf("a test and testdata changed the digest")
	}
	write("lib/lib.go", "package lib\n\nvar X = 1\n")
	edited := digest(nil)
	if edited == first {
		t.Errorf("an edit of the module's other package left the digest as it was")
	}
	// The translation lies outside the module, as gocmd's temporary copy
	// does: only the replacement can bring it in.
	other := t.TempDir()
	writeFile(t, other, "translated.go", "package main\n\nfunc main() { println() }\n")
	if d := digest(nil); d != edited {
		t.Errorf("a file outside the module changed the digest")
	}
	if d := digest(map[string]string{filepath.Join(root, "cmd", "main.go"): filepath.Join(other, "translated.go")}); d == edited {
		t.Errorf("the translation in place of main.go left the digest as it was")
	}
}
