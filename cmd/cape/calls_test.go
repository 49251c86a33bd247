package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/translate"
)

// callCases are programs under testdata/calls whose parallel loops write
// shared memory through code they call indirectly: closures, function
// values handed to helpers, method values, interface methods. Each must
// print exactly what plain `go run` prints, or, where refusal is allowed
// (the write goes through a struct field, which another part of the
// translator places), be refused with positioned errors. A different answer
// is never acceptable.
var callCases = []struct {
	name      string
	mayRefuse bool
}{
	{"closure", false},
	{"helper", false},
	{"methodvalue", false},
	{"iface", false},
	{"structmethod", true},
	{"ifacestruct", true},
}

func TestCallsMatchPlainGo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	for _, c := range callCases {
		t.Run(c.name, func(t *testing.T) {
			dir := "./testdata/calls/" + c.name
			out, err := exec.Command("go", "run", dir).Output()
			if err != nil {
				t.Fatalf("go run %s: %v", dir, err)
			}
			want := string(out)
			for _, nodes := range []string{"2", "3"} {
				got, stderr, err := capeRun(nodes, nil, dir, nil)
				if err != nil && c.mayRefuse {
					checkRefused(t, err, filepath.Join(dir, "main.go"))
					return
				}
				if err != nil {
					t.Fatalf("cape run -n %s %s: %v\nstderr:\n%s", nodes, dir, err, stderr)
				}
				if got != want {
					t.Errorf("cape run -n %s %s printed\n%s\ngo run printed\n%s", nodes, c.name, got, want)
				}
			}
		})
	}
}

// checkRefused requires err to be a translation refusal whose every
// diagnostic is positioned in file.
func checkRefused(t *testing.T, err error, file string) {
	t.Helper()
	var list translate.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("cape run failed without a translation diagnostic: %v", err)
	}
	abs, _ := filepath.Abs(file)
	for _, d := range list {
		if d.Pos.Filename != abs || d.Pos.Line == 0 || d.Pos.Column == 0 {
			t.Errorf("diagnostic %q is not positioned in %s", d, abs)
		}
	}
}

// TestVerifyClosureWrites runs the closure program, whose loops write
// through closures (y += a*x among them), with --verify: the master's
// sequential re-run must start from the region's entry state, so the output
// is the plain program's, not one with the update applied twice.
func TestVerifyClosureWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := "./testdata/calls/closure"
	out, err := exec.Command("go", "run", dir).Output()
	if err != nil {
		t.Fatalf("go run %s: %v", dir, err)
	}
	for _, nodes := range []string{"2", "3"} {
		got, stderr, err := capeRun(nodes, []string{"--verify"}, dir, nil)
		if err != nil {
			t.Fatalf("cape run -n %s --verify %s: %v\nstderr:\n%s", nodes, dir, err, stderr)
		}
		if strings.Contains(stderr, "--verify") {
			t.Errorf("cape run --verify reported a difference:\n%s", stderr)
		}
		if got != string(out) {
			t.Errorf("cape run -n %s --verify printed\n%s\ngo run printed\n%s", nodes, got, out)
		}
	}
}
