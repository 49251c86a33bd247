package capesrc

import (
	"io/fs"
	"os/exec"
	"path"
	"strings"
	"testing"
)

// TestRuntimeSourceComplete checks that Files holds every non-test Go file
// of every package of this module that package cape imports, for every
// operating system the project builds on, and nothing is missing from the
// runtime a user's program is built with.
func TestRuntimeSourceComplete(t *testing.T) {
	embedded := map[string]bool{}
	err := fs.WalkDir(Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded[p] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \" \"}} {{join .IgnoredGoFiles \" \"}}", "./cape")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !strings.HasPrefix(f[0], ModulePath+"/") {
				continue
			}
			rel := strings.TrimPrefix(f[0], ModulePath+"/")
			for _, name := range f[2:] {
				if strings.HasSuffix(name, "_test.go") {
					continue
				}
				if !embedded[path.Join(rel, name)] {
					t.Errorf("GOOS=%s: %s/%s is not in capesrc.Files: add its directory to the //go:embed lines", goos, rel, name)
				}
			}
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if !embedded[f] {
			t.Errorf("%s is not embedded", f)
		}
	}
}
