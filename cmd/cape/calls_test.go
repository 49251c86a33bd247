package main

import (
	"strings"
	"testing"
)

// callCases are programs under testdata/calls whose parallel loops write
// shared memory through code they call indirectly: closures, function
// values handed to helpers, method values, interface methods, a method
// writing a struct's slice field. Each must print exactly what plain
// `go run` prints.
var callCases = []string{"closure", "helper", "methodvalue", "iface", "structmethod", "ifacestruct"}

func TestCallsMatchPlainGo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	for _, name := range callCases {
		t.Run(name, func(t *testing.T) {
			dir := "./testdata/calls/" + name
			want := goRun(t, dir)
			bin := sharedBuild(t, dir)
			for _, nodes := range []string{"2", "3"} {
				got, stderr, err := capeRun(nodes, nil, bin, nil)
				if err != nil {
					t.Fatalf("cape run -n %s %s: %v\nstderr:\n%s", nodes, dir, err, stderr)
				}
				if got != want {
					t.Errorf("cape run -n %s %s printed\n%s\ngo run printed\n%s", nodes, name, got, want)
				}
			}
		})
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
	t.Parallel()
	dir := "./testdata/calls/closure"
	out := goRun(t, dir)
	bin := sharedBuild(t, dir)
	for _, nodes := range []string{"2", "3"} {
		got, stderr, err := capeRun(nodes, []string{"--verify"}, bin, nil)
		if err != nil {
			t.Fatalf("cape run -n %s --verify %s: %v\nstderr:\n%s", nodes, dir, err, stderr)
		}
		if strings.Contains(stderr, "differ") {
			t.Errorf("cape run --verify reported a difference:\n%s", stderr)
		}
		if got != out {
			t.Errorf("cape run -n %s --verify printed\n%s\ngo run printed\n%s", nodes, got, out)
		}
	}
}
