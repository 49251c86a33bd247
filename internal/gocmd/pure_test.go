package gocmd

import (
	"go/build"
	"path/filepath"
	"slices"
	"testing"
)

// TestTranslateRunsNothing checks issue 28's rule that package translate
// runs no command itself (this package does): its non-test files import
// neither os/exec nor this package.
func TestTranslateRunsNothing(t *testing.T) {
	p, err := build.ImportDir(filepath.Join("..", "..", "translate"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"os/exec", "github.com/cape-go/cape/internal/gocmd"} {
		if slices.Contains(p.Imports, bad) {
			t.Errorf("package translate imports %s", bad)
		}
	}
}
