package gocmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/translate"
)

// TestExamples builds each annotated example with Build and checks that,
// run as a single node, it prints what the untranslated program prints.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	for _, ex := range []struct{ name, args string }{
		{"reduction", "-n 5000"},
		{"sections", "-n 5000"},
		{"stencil", "-n 40 -iters 20"},
		{"matmul", ""},
	} {
		t.Run(ex.name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", ex.name)
			if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
				t.Skipf("no example: %v", err)
			}
			args := strings.Fields(ex.args)
			want := runCmd(t, exec.Command("go", append([]string{"run", dir}, args...)...))
			bin := filepath.Join(t.TempDir(), ex.name)
			var stderr bytes.Buffer
			if err := Build(context.Background(), dir, bin, &stderr); err != nil {
				t.Fatalf("Build: %v\n%s", err, stderr.Bytes())
			}
			if got := runCmd(t, exec.Command(bin, args...)); got != want {
				t.Errorf("translated output differs:\ngot  %q\nwant %q", got, want)
			}
		})
	}
}

func runCmd(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%v: %v\n%s", cmd.Args, err, stderr)
	}
	return string(out)
}

// TestLineDirectives checks that a panic in a translated region points at
// the user's source line, not at the generated file.
func TestLineDirectives(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "linepanic")
	var stderr bytes.Buffer
	if err := Build(context.Background(), filepath.Join("testdata", "linepanic"), bin, &stderr); err != nil {
		t.Fatalf("Build: %v\n%s", err, stderr.Bytes())
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err == nil {
		t.Fatalf("the program did not panic:\n%s", out)
	}
	abs, _ := filepath.Abs(filepath.Join("testdata", "linepanic", "main.go"))
	if !bytes.Contains(out, []byte(abs+":10")) {
		t.Errorf("the panic does not point at %s:10:\n%s", abs, out)
	}
}

// TestOverlayWithoutDirectives checks that a package without directives is
// left alone.
func TestOverlayWithoutDirectives(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Overlay(context.Background(), dir, t.TempDir()); err != translate.ErrNoDirectives {
		t.Fatalf("Overlay = %v, want ErrNoDirectives", err)
	}
}

// TestBuildWithoutDirectivesSays checks that building a package without
// directives says that every node will run the whole program.
func TestBuildWithoutDirectivesSays(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/plain\n\ngo 1.26\n", "main.go": "package main\n\nfunc main() {}\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	if err := Build(context.Background(), dir, filepath.Join(t.TempDir(), "plain"), &stderr); err != nil {
		t.Fatalf("Build: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "has no //cape: directives") {
		t.Fatalf("Build said %q; want a notice that the program has no directives", stderr.String())
	}
}
