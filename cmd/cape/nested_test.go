package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestNestedRegionMatchesPlainGo runs programs whose parallel loops call
// functions with their own regions (nestedcall: with a reduction and a
// lastprivate, and the same function outside any region), and nest loops in
// loops and sections (nested): the inner regions run whole on the node that
// reaches them (OpenMP semantics), with or without --verify, and the output
// equals plain `go run`'s.
func TestNestedRegionMatchesPlainGo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	for _, dir := range []string{"./testdata/nestedcall", "./testdata/nested"} {
		t.Run(dir, func(t *testing.T) { nestedMatchesPlainGo(t, dir) })
	}
}

func nestedMatchesPlainGo(t *testing.T, dir string) {
	out := goRun(t, dir)
	for _, c := range []struct {
		nodes string
		flags []string
	}{{"1", nil}, {"2", nil}, {"3", nil}, {"2", []string{"--verify"}}} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"run", "-n", c.nodes}, c.flags...), sharedBuild(t, dir))
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("cape %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		if stdout.String() != out {
			t.Errorf("cape %s printed\n%s\ngo run printed\n%s", strings.Join(args, " "), stdout.String(), out)
		}
	}
}
