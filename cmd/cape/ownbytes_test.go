package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"testing"
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
				args := append([]string{"run", "-n", strconv.Itoa(nodes), "--stats", "--transfer", "eager", p.dir, "--"}, p.args...)
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
