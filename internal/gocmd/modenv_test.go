package gocmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestGoEnvRuntimeSource checks which runtime a user's module is given:
// for a platform whose dependencies the binary carries, the self-contained
// one and no checksum of the runtime's dependencies; for another, the
// runtime as this repository has it, with the runtime's go.sum lines so
// that the go command can check what it fetches.
func TestGoEnvRuntimeSource(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "mod", "init", "example.com/x")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod init: %v\n%s", err, out)
	}
	replaceRE := regexp.MustCompile(`(?m)^replace github.com/cape-go/cape => (.*)$`)
	for _, c := range []struct {
		goarch string
		self   bool
	}{{"amd64", true}, {"mips64le", false}} {
		t.Setenv("GOOS", "linux")
		t.Setenv("GOARCH", c.goarch)
		tmp := t.TempDir()
		if _, err := newGoEnv(context.Background(), dir, tmp); err != nil {
			t.Fatalf("linux/%s: newGoEnv: %v", c.goarch, err)
		}
		mod, _ := os.ReadFile(filepath.Join(tmp, "go.mod"))
		sum, _ := os.ReadFile(filepath.Join(tmp, "go.sum"))
		m := replaceRE.FindSubmatch(mod)
		if m == nil {
			t.Fatalf("linux/%s: the temporary go.mod does not replace the runtime:\n%s", c.goarch, mod)
		}
		_, err := os.Stat(filepath.Join(string(m[1]), "internal", "dep", "golang.org", "x", "sys", "unix"))
		if carried := err == nil; carried != c.self {
			t.Errorf("linux/%s: the runtime in %s carries its dependencies: %v, want %v", c.goarch, m[1], carried, c.self)
		}
		if sums := bytes.Contains(sum, []byte("golang.org/x/sys ")); sums == c.self {
			t.Errorf("linux/%s: the temporary go.sum lists x/sys: %v, want %v", c.goarch, sums, !c.self)
		}
	}
}
