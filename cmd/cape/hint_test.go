package main

import (
	"strings"
	"testing"
)

// TestHintedLoops runs testdata/hintloops, whose regions get the
// translator's hints (write bounds, clean loops) while sequential code
// writes the arena between loops and inside one of them: every node count
// and monitor prints what go run prints, and --stats shows that the hints
// reached the runtime (a clean stretch is announced only where the
// translator proved one).
func TestHintedLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	dir := "./testdata/hintloops"
	args := []string{"-n", "320", "-iters", "30"}
	want := goRun(t, dir, args...)
	bin := sharedBuild(t, dir)
	for _, c := range []struct {
		nodes string
		flags []string
	}{
		{"2", []string{"--stats"}},
		{"3", nil},
		{"2", []string{"--monitor", "uffd"}},
		{"2", []string{"--monitor", "compare"}},
		{"2", []string{"--transfer", "eager"}},
		{"2", []string{"--verify"}},
	} {
		out, errText, err := capeRun(c.nodes, c.flags, bin, args)
		if err != nil {
			t.Fatalf("%s nodes %v: %v\n%s", c.nodes, c.flags, err, errText)
		}
		if out != want {
			t.Fatalf("%s nodes %v printed\n%s\ngo run printed\n%s\nstderr:\n%s", c.nodes, c.flags, out, want, errText)
		}
		if len(c.flags) == 0 || c.flags[0] != "--stats" {
			continue
		}
		// The master's regions: 30 + 4 + 6 + 5 + 5, of which the first
		// of each loop and the 6 of the loop that writes the arena
		// itself are not after a clean stretch.
		clean, bounded := 0, 0
		for _, line := range strings.Split(errText, "\n") {
			if !strings.HasPrefix(line, "cape: master: region ") {
				continue
			}
			if strings.Contains(line, "hints: writes in") {
				bounded++
			}
			if strings.Contains(line, "clean stretch") {
				clean++
			}
		}
		if bounded != 50 || clean != 50-4-6 {
			t.Fatalf("--stats: %d regions with bounded writes (want 50), %d after a clean stretch (want 40):\n%s", bounded, clean, errText)
		}
	}
}

// goRun returns what go run prints for the package in dir given args,
// with no input.
func goRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return goRunOutput(t, dir, args, nil)
}
