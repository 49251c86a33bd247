package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestStepsFreeAndArenaPointers runs a hand-written time-stepping program
// that allocates its next state in the arena every step, frees the old one
// (cape.Free) and keeps row headers of the state in an arena [][]float64:
// the output equals plain Go's on 1 to 3 nodes. A Go heap slice stored
// among the row headers is refused, by sequential code at the next region's
// Start and by a slave inside a region at the master's merge, naming the
// element and the allocation site.
func TestStepsFreeAndArenaPointers(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	const dir = "./testdata/steps"
	args := []string{"-n", "6000", "-steps", "30", "-rows", "5"}
	for _, sparse := range []bool{false, true} {
		// Sparse steps leave two thirds of each new state as allocated:
		// reused memory must read as zero on every node.
		args := append([]string{fmt.Sprintf("-sparse=%v", sparse)}, args...)
		out := goRun(t, dir, append([]string{"-plain"}, args...)...)
		for _, nodes := range []string{"1", "2", "3"} {
			var stdout, stderr bytes.Buffer
			if err := run(append([]string{"run", "-n", nodes, sharedBuild(t, dir), "--"}, args...), &stdout, &stderr); err != nil {
				t.Fatalf("cape run -n %s %v: %v\n%s", nodes, args, err, stderr.String())
			}
			if stdout.String() != out {
				t.Errorf("cape run -n %s %v printed %q, plain Go %q", nodes, args, stdout.String(), out)
			}
		}
	}
	abs, err := filepath.Abs(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ flag, who string }{{"-heaprow", "cape: node 1: "}, {"-heaprowin", "cape: master: "}} {
		var stdout, stderr bytes.Buffer
		// Eager transfer: under lazy transfer a slave may still be
		// fetching the row headers it checks when the master, which
		// found the pointer first, has ended the job.
		err := run(append([]string{"run", "-n", "2", "--transfer", "eager", sharedBuild(t, dir), "--", c.flag}, args...), &stdout, &stderr)
		if err == nil {
			t.Fatalf("%s: the job succeeded, printing %q", c.flag, stdout.String())
		}
		want := "region step 15 (#16): element [4] of the [][]float64 allocated at " + abs
		if !strings.Contains(stderr.String(), c.who+want) || !strings.Contains(stderr.String(), "outside the CAPE arena") {
			t.Errorf("%s: stderr does not say %q:\n%s", c.flag, c.who+want, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: printed %q after the error", c.flag, stdout.String())
		}
	}
}
