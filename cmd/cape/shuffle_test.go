package main

import (
	"fmt"
	"strconv"
	"testing"
)

// TestShuffle runs testdata/shuffle, a seeded sequence of regions writing
// shared arrays of four element sizes at scattered places under each
// schedule and reading them anywhere, on 2 to 4 nodes under the default
// transfer, with and without a slave lost: every run must print go run's
// output. The seeds and faults are fixed, so a failure is reproducible.
func TestShuffle(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/shuffle")
	for _, c := range []struct {
		seed  int
		nodes string
		fault string
		lost  int // the rank the fault loses, 0 for none
	}{
		{1, "2", "", 0}, {2, "3", "", 0}, {3, "4", "", 0},
		{4, "3", "node=2,at=compute,do=crash,region=9", 2},
		{5, "4", "node=1,at=broadcast,do=crash,region=17", 1},
		{6, "2", "node=1,at=exchange,do=crash,region=4", 1},
	} {
		t.Run(fmt.Sprintf("seed%d/%s/%s", c.seed, c.nodes, c.fault), func(t *testing.T) {
			args := []string{"-seed", strconv.Itoa(c.seed)}
			want := goRun(t, "./testdata/shuffle", args...)
			t.Setenv("CAPE_FAULT", c.fault)
			stdout, stderr, err := capeRun(c.nodes, nil, bin, args)
			if err != nil {
				t.Fatalf("cape run: %v\n%s", err, stderr)
			}
			if stdout != want {
				t.Errorf("printed\n%s\nwant\n%s\nstderr:\n%s", stdout, want, stderr)
			}
			if c.lost > 0 && !lossNamed(stderr, c.lost) {
				t.Errorf("the loss of node %d is not reported:\n%s", c.lost, stderr)
			}
		})
	}
}

// TestToggleTwins runs testdata/toggle on 3 nodes under the default
// transfer with the uffd tracker forced to each kind of region
// (CAPE_UFFD_MODE), and adaptive: its values flip between 0 and 1, so a
// byte merged against a stale twin keeps an old value and the counts it
// prints go wrong. Distributed homes keep twins only where a region may
// write, which only mixed Starts kept current: a faults region after them
// made most runs print wrong counts with exit status 0.
func TestToggleTwins(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/toggle")
	args := []string{"-iters", "4"}
	want := goRun(t, "./testdata/toggle", args...)
	for _, mode := range []string{"faults", "compare", "alternate", "adaptive"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv("CAPE_UFFD_MODE", mode)
			for range 2 {
				stdout, stderr, err := capeRun("3", nil, bin, args)
				if err != nil {
					t.Fatalf("cape run: %v\n%s", err, stderr)
				}
				if stdout != want {
					t.Fatalf("printed\n%s\nwant\n%s\nstderr:\n%s", stdout, want, stderr)
				}
			}
		})
	}
}
