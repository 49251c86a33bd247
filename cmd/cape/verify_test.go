package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/launch"
)

// verifyArgs are small sizes for the examples; an example not listed runs
// with its defaults.
var verifyArgs = map[string][]string{
	"closure":   {"-w", "96", "-h", "40"},
	"matmul":    {"-n", "96"},
	"reduction": {"-n", "20000"},
	"sections":  {"-n", "20000"},
	"stencil":   {"-n", "48", "-iters", "6"},
}

var directiveRE = regexp.MustCompile(`(?m)^\s*//cape:parallel `)

// capeRun runs `cape run -n nodes [flags] dir -- args` and returns its
// stdout, stderr and error.
func capeRun(nodes string, flags []string, dir string, args []string) (string, string, error) {
	var stdout, stderr bytes.Buffer
	cmd := append([]string{"run", "-n", nodes}, flags...)
	cmd = append(cmd, dir)
	if len(args) > 0 {
		cmd = append(append(cmd, "--"), args...)
	}
	err := run(cmd, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// verifiedRE is --verify's last line on a job that ended well.
var verifiedRE = regexp.MustCompile(`(?m)^cape: --verify: (\d+) region\(s\) re-run sequentially on the master, each with the parallel run's result$`)

// TestVerifyExamples runs every annotated example under examples/ on two
// nodes with --verify: the sequential re-run of each region must agree with
// the parallel run, and the output must be the one of a run without it.
func TestVerifyExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	t.Parallel()
	dirs, err := filepath.Glob("../../examples/*/main.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range dirs {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !directiveRE.Match(src) {
			continue // a hand-written template: no directive, nothing to re-run
		}
		dir := filepath.Dir(file)
		name := filepath.Base(dir)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			args := verifyArgs[name]
			bin := sharedBuild(t, dir)
			want, stderr, err := capeRun("2", nil, bin, args)
			if err != nil {
				t.Fatalf("cape run -n 2 %s: %v\nstderr:\n%s", name, err, stderr)
			}
			got, stderr, err := capeRun("2", []string{"--verify"}, bin, args)
			if err != nil {
				t.Fatalf("cape run -n 2 --verify %s: %v\nstderr:\n%s", name, err, stderr)
			}
			if strings.Contains(stderr, "differ") {
				t.Errorf("cape run --verify reported a difference:\n%s", stderr)
			}
			// It says that it ran, and how many regions agreed.
			if m := verifiedRE.FindStringSubmatch(stderr); m == nil || m[1] == "0" {
				t.Errorf("cape run --verify did not say that regions were re-run:\n%s", stderr)
			}
			if got != want {
				t.Errorf("output with --verify differs:\ngot  %q\nwant %q", got, want)
			}
		})
	}
	for name := range verifyArgs {
		if !seen[name] {
			t.Errorf("example %s is missing or has no directive", name)
		}
	}
}

// TestVerifyClauses runs a correct program that uses every clause, labels,
// schedules, loop forms and sections with --verify on 1 to 3 nodes: the
// re-runs must agree and the output must be the plain sequential program's.
func TestVerifyClauses(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	t.Parallel()
	dir := "./testdata/verifyclauses"
	want := goRun(t, dir)
	bin := sharedBuild(t, dir)
	for _, nodes := range []string{"1", "2", "3"} {
		got, stderr, err := capeRun(nodes, []string{"--verify"}, bin, nil)
		if err != nil {
			t.Fatalf("cape run -n %s --verify %s: %v\nstderr:\n%s", nodes, dir, err, stderr)
		}
		if got != want {
			t.Errorf("cape run -n %s --verify printed\n%q\nthe sequential program printed\n%q", nodes, got, want)
		}
	}
}

// TestVerifyCatchesDependence runs a program with a loop-carried dependence
// through an arena slice, which the translator cannot see: the parallel run
// is wrong, and --verify must fail naming the region and the slice.
func TestVerifyCatchesDependence(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	t.Parallel()
	dir := "./testdata/verifybad"
	abs, err := filepath.Abs(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}

	// Without --verify the bug goes unnoticed: the wrong result is printed.
	bin := sharedBuild(t, dir)
	out, stderr, err := capeRun("2", nil, bin, nil)
	if err != nil {
		t.Fatalf("cape run -n 2 %s: %v\nstderr:\n%s", dir, err, stderr)
	}
	if strings.TrimSpace(out) == "999" {
		t.Fatalf("the parallel run printed the sequential result %q: the test program does not show the bug", out)
	}

	out, stderr, err = capeRun("2", []string{"--verify"}, bin, nil)
	if err == nil {
		t.Fatalf("cape run -n 2 --verify %s succeeded, want a failure\nstdout:\n%s\nstderr:\n%s", dir, out, stderr)
	}
	var ee *launch.ExitError
	if !errors.As(err, &ee) || ee.Code == 0 {
		t.Errorf("error %v (%T), want a non-zero exit status", err, err)
	}
	// The region is named by the directive's position, the variable by
	// the position of the make that allocated it.
	for _, re := range []string{
		`region main\.go:23:2 \(#1\): --verify: the parallel run and a sequential re-run differ`,
		`element \[501\] of the \[\]int64 allocated at ` + regexp.QuoteMeta(abs) + `:18\b`,
	} {
		if !regexp.MustCompile(re).MatchString(stderr) {
			t.Errorf("stderr does not match %q:\n%s", re, stderr)
		}
	}
	if out != "" {
		t.Errorf("the master printed after the failed verification:\n%s", out)
	}

	// On one node the loop runs in order: --verify agrees.
	out, stderr, err = capeRun("1", []string{"--verify"}, bin, nil)
	if err != nil || strings.TrimSpace(out) != "999" {
		t.Errorf("cape run -n 1 --verify %s: %v, printed %q\nstderr:\n%s", dir, err, out, stderr)
	}
}

// TestPanics runs a program that panics in an iteration: where every node
// would (the program's failure), the job ends with status 2 and the panic's
// message, as go run does; where only one slave does (a node's failure),
// its message is shown and the job goes on without it.
func TestPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	t.Parallel()
	bin := sharedBuild(t, "./testdata/panics")
	out, stderr, err := capeRun("2", nil, bin, []string{"-all"})
	var ee *launch.ExitError
	if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(stderr, "panic: boom at 77") {
		t.Fatalf("every node panics: err %v, want exit status 2 with the panic's message\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
	// The master's program failed: a slave ending after it is not the
	// sign of a completed job.
	if strings.Contains(stderr, "completed the job") {
		t.Errorf("every node panics: the slave's end is reported as a loss after a completed job:\n%s", stderr)
	}
	out, stderr, err = capeRun("2", nil, bin, nil)
	if err != nil || out != "after 77\n" || !strings.Contains(stderr, "[node 1] panic: boom at 77") {
		t.Fatalf("node 1 panics: err %v, want the job done with node 1's message shown\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
}

// TestVerifySliceReductionInArena: a slice reduction variable that a
// checkpoint places in the arena is verified where it lies (--verify
// stopped this correct program).
func TestVerifySliceReductionInArena(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	want := goRun(t, "./testdata/verifyck")
	bin := sharedBuild(t, "./testdata/verifyck")
	for _, nodes := range []string{"2", "3"} {
		if out, stderr, err := capeRun(nodes, []string{"--verify"}, bin, nil); err != nil || out != want {
			t.Errorf("cape run -n %s --verify: %v, printed %q, want %q\n%s", nodes, err, out, want, stderr)
		}
	}
}
