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
