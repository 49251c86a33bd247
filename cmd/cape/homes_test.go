//go:build linux

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// homesMasterRE matches the master's --stats line of a region: the bytes it
// received; homesSlaveRE a slave's: the pages its region wrote.
var (
	homesMasterRE = regexp.MustCompile(`cape: master: region \S+ #(\d+): .*received (\d+) bytes\)`)
	homesSlaveRE  = regexp.MustCompile(`\[node \d+\] cape: node \d+: region \S+ #\d+: .*create \S+ \((\d+) pages, \d+ bytes\)`)
)

// TestHomesTransfer runs programs whose regions read what other nodes
// wrote, in sequential code and in the next regions, under --transfer
// homes on 2 and 3 nodes: the output must be go run's. Blocks end inside
// pages (rows of 2 KiB and vectors split at any element), so some pages
// have several writers, which the master merges. The master must receive
// notices and those pages only: for the Jacobi sweep, at most a quarter of
// the bytes the slaves changed (it received all of them before).
func TestHomesTransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	needLazyPages(t)
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{"./testdata/lazy", nil},
		{"../../examples/jacobi", []string{"-n", "256", "-iters", "20"}},
		// Pushed halo rows land on pages the tracker compares (n=1024).
		{"../../examples/jacobi", []string{"-n", "1024", "-iters", "12"}},
		{"../../examples/cg", nil},
		{"../../examples/rows", nil},
		{"../../examples/sections", nil},
		// Allocates every step: nodes collect garbage while they fetch
		// each other's pages (a page server in the node's own process
		// waited for ever then).
		{"./testdata/steps", nil},
	} {
		want := goRun(t, c.dir, c.args...)
		for _, nodes := range []string{"2", "3"} {
			stdout, stderr, err := capeRun(nodes, []string{"--transfer", "homes", "--stats"}, sharedBuild(t, c.dir), c.args)
			if err != nil {
				t.Fatalf("%s -n %s: %v\n%s", c.dir, nodes, err, stderr)
			}
			if stdout != want {
				t.Errorf("%s -n %s --transfer homes printed %q, go run %q", c.dir, nodes, stdout, want)
			}
			if strings.Contains(stderr, "unavailable") {
				t.Fatalf("%s -n %s: distributed homes were not used:\n%s", c.dir, nodes, stderr)
			}
			if !strings.Contains(c.dir, "jacobi") {
				continue
			}
			received, changed := 0, 0
			for _, m := range homesMasterRE.FindAllStringSubmatch(stderr, -1) {
				k, _ := strconv.Atoi(m[2])
				received += k
			}
			for _, m := range homesSlaveRE.FindAllStringSubmatch(stderr, -1) {
				k, _ := strconv.Atoi(m[1])
				changed += k * 4096 // the sweep changes every byte of the pages it writes
			}
			if changed == 0 || received > changed/4 {
				t.Errorf("%s -n %s: the master received %d bytes of the slaves' %d changed: want at most a quarter\n%s", c.dir, nodes, received, changed, stderr)
			}
		}
	}
}

// TestHomesConflict checks that a conflict is still an error naming both
// nodes and the element under distributed homes (the page's writers send
// their runs when the master asks).
func TestHomesConflict(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	needLazyPages(t)
	stdout, stderr, err := capeRun("2", []string{"--transfer", "homes"}, sharedBuild(t, "./testdata/conflict"), nil)
	if err == nil {
		t.Fatalf("a conflicting region succeeded; printed %q", stdout)
	}
	if !strings.Contains(stderr, "nodes 0 and 1 wrote different values to element [0]") {
		t.Errorf("no conflict naming both nodes:\n%s", stderr)
	}
}

// TestHomesLossStops checks that losing a slave under distributed homes,
// whose pages no other node holds, stops the job with an error naming the
// page or the loss, never printing another answer (recovery, from a buddy's
// replica, is not built yet).
func TestHomesLossStops(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	t.Setenv("CAPE_FAULT", "node=1,at=send,do=exit,region=3")
	stdout, stderr, err := capeRun("2", []string{"--transfer", "homes"}, sharedBuild(t, "./testdata/lazy"), nil)
	if err == nil {
		t.Fatalf("the job succeeded without node 1's pages: printed %q\n%s", stdout, stderr)
	}
	if stdout != "" {
		t.Errorf("the job printed %q after a loss", stdout)
	}
	// The master stops either when it re-runs the lost node's units and
	// touches a page only that node held, or at the region's end.
	if !regexp.MustCompile(`fetch page \d+ from node 1|the pages it held cannot be recovered`).MatchString(stderr) {
		t.Errorf("no error naming the lost pages:\n%s", stderr)
	}
}
