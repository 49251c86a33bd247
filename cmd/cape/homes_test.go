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

// TestHomesLossRecovers checks a loss under distributed homes: the
// master re-runs the lost node's units, reading the pages only that node
// held from its buddy's replica (here the master's own), takes them over,
// and the job prints the sequential output; with --max-lost 0 nothing is
// replicated and the loss stops the job, naming the node.
func TestHomesLossRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	bin := sharedBuild(t, "./testdata/lazy")
	want := goRun(t, "./testdata/lazy")
	t.Setenv("CAPE_FAULT", "node=1,at=send,do=exit,region=3")
	stdout, stderr, err := capeRun("2", []string{"--transfer", "homes"}, bin, nil)
	if err != nil || stdout != want {
		t.Fatalf("cape run: %v, printed %q, want %q\n%s", err, stdout, want, stderr)
	}
	if !regexp.MustCompile(`took over the \d+ pages lost node\(s\) \[1\] held`).MatchString(stderr) {
		t.Errorf("the master did not say it took over node 1's pages:\n%s", stderr)
	}
	stdout, stderr, err = capeRun("2", []string{"--transfer", "homes", "--max-lost", "0"}, bin, nil)
	if err == nil || stdout != "" || !strings.Contains(stderr, "node 1") {
		t.Errorf("--max-lost 0: %v, printed %q; want a failure naming node 1\n%s", err, stdout, stderr)
	}
}
