package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// TestSlavesReceiveNoOwnBytes runs the matrix product on 2 and 3 nodes with
// --stats and checks, for every region, that each slave received exactly
// the bytes the other nodes wrote (their deltas are disjoint rows) and none
// at offsets it wrote itself.
func TestSlavesReceiveNoOwnBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	lineRE := regexp.MustCompile(`(?m)^(?:\[node \d+\] )?cape: (master|node \d+): region \S+ #(\d+): .*create \S+ \(\d+ pages, (\d+) bytes\).*\(sent \d+, received \d+ bytes\)(?:; merged delta received: (\d+) bytes, (\d+) of them where this node wrote)?(?:; .*)?$`)
	for _, nodes := range []int{2, 3} {
		t.Run(fmt.Sprintf("nodes=%d", nodes), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"run", "-n", strconv.Itoa(nodes), "--stats", "--transfer", "eager", "../../examples/matmul", "--", "-n", "300"}
			if err := run(args, &stdout, &stderr); err != nil {
				t.Fatalf("cape %v: %v\n%s", args, err, stderr.String())
			}
			type nodeStats struct{ wrote, got, own int }
			regions := map[string]map[string]nodeStats{} // region → node → stats
			for _, m := range lineRE.FindAllStringSubmatch(stderr.String(), -1) {
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
				total := 0
				for _, s := range byNode {
					total += s.wrote
				}
				for name, s := range byNode {
					if name == "master" {
						continue
					}
					if s.own != 0 || s.got != total-s.wrote {
						t.Errorf("region #%s: %s received %d bytes, %d where it wrote; want %d (the others' %d - its own %d), 0",
							seq, name, s.got, s.own, total-s.wrote, total, s.wrote)
					}
				}
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
