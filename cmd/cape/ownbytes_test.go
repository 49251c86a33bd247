package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSlavesReceiveNoOwnBytes runs the stencil (regions in a loop) and the
// matrix product (one region, the program's last) on 2 and 3 nodes with
// --stats and eager transfer, and checks, for every region, that each slave
// received exactly the bytes the other nodes wrote (their deltas are
// disjoint rows) and none at offsets it wrote itself; after the program's
// last region, which the slaves leave, none at all.
func TestSlavesReceiveNoOwnBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	t.Parallel()
	progs := []struct {
		name, dir string
		args      []string
		last      string // the sequence number of the program's last region
	}{
		{"stencil", "../../examples/stencil", []string{"-n", "200", "-iters", "4"}, ""},
		{"matmul", "../../examples/matmul", []string{"-n", "300"}, "1"},
	}
	for _, p := range progs {
		for _, nodes := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/nodes=%d", p.name, nodes), func(t *testing.T) {
				args := append([]string{"run", "-n", strconv.Itoa(nodes), "--stats", "--transfer", "eager", sharedBuild(t, p.dir), "--"}, p.args...)
				regions := regionBytes(t, args, nodes)
				for seq, byNode := range regions {
					total := 0
					for _, s := range byNode {
						total += s.wrote
					}
					want := func(s nodeStats) int { return total - s.wrote }
					if seq == p.last {
						want = func(nodeStats) int { return 0 }
					}
					for name, s := range byNode {
						if name == "master" {
							continue
						}
						if s.own != 0 || s.got != want(s) {
							t.Errorf("region #%s: %s received %d bytes, %d where it wrote; want %d (the others wrote %d, it wrote %d), 0",
								seq, name, s.got, s.own, want(s), total-s.wrote, s.wrote)
						}
					}
				}
				if p.last != "" && regions[p.last] == nil {
					t.Errorf("no stats of the last region #%s", p.last)
				}
			})
		}
	}
}

type nodeStats struct{ wrote, got, own int }

var regionLineRE = regexp.MustCompile(`(?m)^(?:\[node \d+\] )?cape: (master|node \d+): region \S+ #(\d+): .*create \S+ \(\d+ pages, (\d+) bytes\).*\(sent \d+, received \d+ bytes\)(?:; merged delta received: (\d+) bytes, (\d+) of them where this node wrote)?(?:; .*)?$`)

// regionBytes runs cape with args and returns, by region and node, the
// bytes of the node's delta and, for a slave, of the merged delta it
// received and how many of them fall where it wrote. Every region must have
// the stats lines of every node.
func regionBytes(t *testing.T, args []string, nodes int) map[string]map[string]nodeStats {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("cape %v: %v\n%s", args, err, stderr.String())
	}
	regions := map[string]map[string]nodeStats{} // region → node → stats
	for _, m := range regionLineRE.FindAllStringSubmatch(stderr.String(), -1) {
		s := nodeStats{wrote: atoi(t, m[3])}
		if m[1] != "master" {
			if m[4] == "" {
				t.Fatalf("slave's stats line without the merged delta's bytes: %q", m[0])
			}
			s.got, s.own = atoi(t, m[4]), atoi(t, m[5])
		}
		if regions[m[2]] == nil {
			regions[m[2]] = map[string]nodeStats{}
		}
		regions[m[2]][m[1]] = s
	}
	if len(regions) == 0 {
		t.Fatalf("no stats lines in:\n%s", stderr.String())
	}
	for seq, byNode := range regions {
		if len(byNode) != nodes {
			t.Fatalf("region #%s: stats lines of %d nodes, want %d", seq, len(byNode), nodes)
		}
	}
	return regions
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var (
	masterLineRE = regexp.MustCompile(`(?m)^cape: master: region \S+ #2: .*compute (\S+), .*exchange \S+ = wait (\S+) .*$`)
	waitedRE     = regexp.MustCompile(`; of the compute, (\S+) waiting for the slaves' deltas`)
	faultsRE     = regexp.MustCompile(`; \d+ page faults in the compute`)
)

// TestStatsMasterWaitsForSlaves runs testdata/slowslave, whose slave's
// share of each region sleeps 300 ms: with re-execution on (the default),
// the master's loop waits for the slave's delta and its --stats line says
// how much of its compute that was; with --max-lost 0 the wait shows in the
// exchange instead, and the line says nothing of it. Either way the line
// counts the compute's page faults.
func TestStatsMasterWaitsForSlaves(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	const pause = 250 * time.Millisecond // a little less than the sleep
	for _, policy := range []string{"-1", "0"} {
		stdout, stderr, err := capeRun("2", []string{"--stats", "--max-lost", policy}, sharedBuild(t, "./testdata/slowslave"), nil)
		if err == nil && stdout != "[2 4]\n" {
			err = fmt.Errorf("printed %q, want [2 4]", stdout)
		}
		if err != nil {
			t.Fatalf("--max-lost %s: %v\n%s", policy, err, stderr)
		}
		m := masterLineRE.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("--max-lost %s: no stats line of the master for region #2 in:\n%s", policy, stderr)
		}
		compute, wait := duration(t, m[1]), duration(t, m[2])
		if !faultsRE.MatchString(m[0]) {
			t.Errorf("--max-lost %s: the master's line %q does not count the compute's page faults", policy, m[0])
		}
		w := waitedRE.FindStringSubmatch(m[0])
		if policy == "0" {
			if w != nil || wait < pause {
				t.Errorf("--max-lost 0: the master's line %q: want the wait (≥ %v) in the exchange and no note of it", m[0], pause)
			}
			continue
		}
		if w == nil {
			t.Fatalf("--max-lost -1: the master's line %q does not say how long its loop waited", m[0])
		}
		if waited := duration(t, w[1]); waited < pause || waited > compute {
			t.Errorf("--max-lost -1: the master's line %q: waited %v, want ≥ %v and ≤ the compute %v", m[0], waited, pause, compute)
		}
	}
}

func duration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(strings.TrimSuffix(s, ","))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
