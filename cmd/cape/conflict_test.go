package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeConflictNamesEachThingOnce runs a region in which two nodes
// write different values to one element: the job fails, and the master's
// message names the region, both nodes, the element and the allocation
// site, each exactly once, with no repeated "merge" or "region".
func TestMergeConflictNamesEachThingOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	const dir = "./testdata/conflict"
	abs, err := filepath.Abs(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"run", "-n", "2", dir}, &stdout, &stderr); err == nil {
		t.Fatalf("a conflicting region succeeded; printed %q", stdout.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("the master printed after the conflict: %q", stdout.String())
	}
	var line string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(l, "cape: master: ") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no message from the master:\n%s", stderr.String())
	}
	for _, c := range []struct {
		s    string
		want int
	}{
		{"cape: master: region main.go:11:2 (#1): ", 1},
		{"nodes 0 and 1 wrote different values to ", 1},
		{"element [0] of the []int64 allocated at " + abs + ":10 ", 1},
		{"(their first differing byte 0x03 vs 0x07)", 1},
		{"region", 1}, {"master", 1}, {"node", 1}, {"main.go:11:2", 1}, {"merge", 0}, {"offset", 0},
	} {
		// Words are counted outside the allocation site's path, which is
		// the checkout's and may contain any of them.
		in := line
		if !strings.Contains(c.s, abs) {
			in = strings.ReplaceAll(line, abs, "")
		}
		if n := strings.Count(in, c.s); n != c.want {
			t.Errorf("%q appears %d times in the master's message, want %d:\n%s", c.s, n, c.want, line)
		}
	}
}
