package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// users3Cases are the programs of testdata/users3 that must print what
// plain `go run` prints: a Monte Carlo loop whose iterations make their own
// random generators (by literal, by a constructor returning a value, in a
// helper) and call pointer-receiver methods on them, with a work array
// whose address is taken, a per-iteration struct writing shared memory
// through a field, and a local array filled through a pointer; a leapfrog
// with a new level made every step and rotated in (prev, cur = cur, next);
// three-level rotations (a, b, c = b, c, a and u0, u1, u2 = u1, u2, next).
var users3Cases = []string{"montecarlo", "leapfrog", "rotate3"}

// TestUsers3MatchPlainGo runs each program on 2 and 3 nodes, and on 3
// nodes under --verify, and compares stdout with go run's byte for byte.
func TestUsers3MatchPlainGo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	for _, name := range users3Cases {
		t.Run(name, func(t *testing.T) {
			dir := "./testdata/users3/" + name
			want := goRunOutput(t, dir, nil, nil)
			for _, c := range []struct {
				nodes string
				flags []string
			}{{"2", nil}, {"3", nil}, {"3", []string{"--verify"}}} {
				// The first run builds from the source: its stderr has
				// the translator's warnings, which must be none.
				prog := dir
				if c.nodes != "2" {
					prog = sharedBuild(t, dir)
				}
				got, stderr, err := capeRun(c.nodes, c.flags, prog, nil)
				if err != nil {
					t.Fatalf("cape run -n %s %v %s: %v\nstderr:\n%s", c.nodes, c.flags, dir, err, stderr)
				}
				if got != want {
					t.Errorf("cape run -n %s %v %s printed\n%s\ngo run printed\n%s", c.nodes, c.flags, name, got, want)
				}
				if strings.Contains(stderr, "warning:") || strings.Contains(stderr, "differ") {
					t.Errorf("cape run -n %s %v %s reported:\n%s", c.nodes, c.flags, name, stderr)
				}
			}
		})
	}
}

// TestUsers3RotationsFreed translates the rotating programs: each rotation
// that drops a level frees it, with no warning about memory never
// reclaimed, and the Monte Carlo loop's per-iteration locals stay where Go
// puts them (nothing is allocated in the arena inside the loop).
func TestUsers3RotationsFreed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Parallel()
	for _, c := range []struct {
		name  string
		frees []string
	}{
		{"leapfrog", []string{"Free(prev)"}},
		{"rotate3", []string{"Free(u0)"}},
		{"montecarlo", nil},
	} {
		var stdout, stderr bytes.Buffer
		if err := run([]string{"translate", "./testdata/users3/" + c.name}, &stdout, &stderr); err != nil {
			t.Fatalf("cape translate %s: %v\n%s", c.name, err, stderr.String())
		}
		got := stdout.String()
		if strings.Contains(stderr.String()+got, "never reclaimed") {
			t.Errorf("%s: a warning about unreclaimed memory:\n%s", c.name, stderr.String())
		}
		if n := strings.Count(got, ".Free("); n != len(c.frees) {
			t.Errorf("%s: %d frees, want %d (%v)", c.name, n, len(c.frees), c.frees)
		}
		for _, f := range c.frees {
			if !strings.Contains(got, f) {
				t.Errorf("%s: no %s in the translation", c.name, f)
			}
		}
		if c.name == "montecarlo" && strings.Count(got, ".New[") != 0 {
			t.Errorf("montecarlo: a per-iteration local moved to the arena:\n%s", got)
		}
	}
}

// TestUsers3LeapfrogArenaBounded runs the leapfrog for 600 steps of 20,000
// points (a leak of 96 MB) in a 16 MB arena: the rotation's frees keep the
// arena at three levels. The same program with a rotation CAPE cannot
// prove (leapleak: the new level is used after the rotation) exhausts that
// arena, which shows the bound is what makes the first run succeed.
func TestUsers3LeapfrogArenaBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	args := []string{"-n", "20000", "-steps", "600"}
	flags := []string{"--arena-size", "16M"}
	dir := "./testdata/users3/leapfrog"
	want := goRunOutput(t, dir, args, nil)
	got, stderr, err := capeRun("3", flags, dir, args)
	if err != nil {
		t.Fatalf("cape run -n 3 %v %s: %v\nstderr:\n%s", flags, dir, err, stderr)
	}
	if got != want {
		t.Errorf("cape run -n 3 %v %s printed\n%s\ngo run printed\n%s", flags, dir, got, want)
	}
	got, stderr, err = capeRun("2", flags, "./testdata/users3/leapleak", args)
	if err == nil {
		t.Fatalf("leapleak completed in a 16 MB arena, printing %q: the arena bound proves nothing", got)
	}
	if !strings.Contains(stderr, "never reclaimed") || !strings.Contains(stderr, "arena exhausted") {
		t.Errorf("leapleak: want the translation's warning and an exhausted arena, got:\n%s", stderr)
	}
	// The error names the call site whose live allocations fill the
	// arena, and ends the job as an error, not a panic's trace.
	if !regexp.MustCompile(`live allocation\(s\) made at \S*leapleak/main\.go:22`).MatchString(stderr) || strings.Contains(stderr, "goroutine 1 [") {
		t.Errorf("leapleak: want the exhausted arena's error naming main.go:22, without a panic, got:\n%s", stderr)
	}
}

// TestArenaTooSmall: a first allocation larger than the whole arena
// (--arena-size 1K) ends the job with one error naming the flag and a
// size that fits, not a panic's trace from every node.
func TestArenaTooSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	_, stderr, err := capeRun("2", []string{"--arena-size", "1K"}, "../../examples/stencil", []string{"-n", "64"})
	if err == nil {
		t.Fatal("the stencil ran in a 1 KiB arena")
	}
	if !strings.Contains(stderr, "arena exhausted") || !strings.Contains(stderr, "--arena-size 1G") || strings.Contains(stderr, "goroutine 1 [") {
		t.Errorf("want the exhausted arena's error naming --arena-size, without a panic, got:\n%s", stderr)
	}
}

// TestDivergedArenasStop runs a program whose node 1 allocates more than
// the master before its region: the job must fail with the master's error
// naming both extents, and print no result.
func TestDivergedArenasStop(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	got, stderr, err := capeRun("3", nil, "./testdata/diverge", nil)
	if err == nil || got != "" {
		t.Fatalf("cape run -n 3 diverge: %v, printed %q; want a failure and no output\nstderr:\n%s", err, got, stderr)
	}
	if !regexp.MustCompile(`node 1 entered this region with \d+ pages of arena in use, the master with \d+`).MatchString(stderr) {
		t.Fatalf("stderr does not name the differing arenas:\n%s", stderr)
	}
}
