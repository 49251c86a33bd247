package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestIdiomsMatchPlainGo runs each program of testdata/idioms (one Go idiom
// each: typed make lengths, array reductions) with plain `go run` and with
// `cape run -n 2` and `-n 3`, and requires the same output.
func TestIdiomsMatchPlainGo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	dirs, err := filepath.Glob("testdata/idioms/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no idiom programs: %v", err)
	}
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			pkg := "./" + dir
			out := goRun(t, pkg)
			bin := sharedBuild(t, pkg)
			for _, nodes := range []int{2, 3} {
				var stdout, stderr bytes.Buffer
				cmd := []string{"run", "-n", fmt.Sprint(nodes), bin}
				if err := run(cmd, &stdout, &stderr); err != nil {
					t.Fatalf("cape run -n %d %s: %v\n%s", nodes, pkg, err, stderr.String())
				}
				if stdout.String() != out {
					t.Errorf("cape run -n %d %s printed\n%s\ngo run printed\n%s", nodes, pkg, stdout.String(), out)
				}
			}
		})
	}
}
