package gocmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirectivesElsewhere checks the notices for directives in the
// packages of the module the main package imports, and none for a package
// it does not import or for test files.
func TestDirectivesElsewhere(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                "module example.com/m\n\ngo 1.22\n",
		"main.go":               "package main\n\nimport \"example.com/m/solver\"\n\nfunc main() { solver.Run() }\n",
		"solver/solver.go":      "package solver\n\nfunc Run() {\n\ta := make([]int, 8)\n\t//cape:parallel for\n\tfor i := range a {\n\t\ta[i] = i\n\t}\n}\n",
		"solver/solver_test.go": "package solver\n\n//cape:parallel for\n",
		"unused/unused.go":      "package unused\n\n//cape:parallel for\nfunc F() {}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := directivesElsewhere(context.Background(), dir)
	if len(got) != 1 {
		t.Fatalf("got %d notices, want 1 (solver.go's): %q", len(got), got)
	}
	want := filepath.Join(dir, "solver", "solver.go") + ":5:2: //cape:parallel is in a package the program imports"
	if !strings.Contains(got[0], want) {
		t.Fatalf("notice %q, want it to hold %q", got[0], want)
	}
}
