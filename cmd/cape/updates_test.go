//go:build linux

package main

import (
	"strings"
	"testing"
)

// TestUpdates: a parallel loop updating shared elements at indices the
// translator cannot prove distinct per iteration (cape.Region.Updates)
// stops with an error naming both nodes and the element where two nodes
// updated one element (a histogram without a reduction clause: go run's
// counts would otherwise be halved, with exit status 0), and prints what
// go run prints where the elements are distinct (permutations), under
// every transfer.
func TestUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	hist := sharedBuild(t, "./testdata/updates/hist")
	scatter := sharedBuild(t, "./testdata/updates/scatter")
	wantScatter := goRun(t, "./testdata/updates/scatter")
	wantHist := goRun(t, "./testdata/updates/hist")
	mixed := sharedBuild(t, "./testdata/updates/mixed")
	wantFields := goRun(t, "./testdata/updates/mixed", "-fields")
	restore := sharedBuild(t, "./testdata/updates/restore")
	wantFlag := goRun(t, "./testdata/updates/restore", "-flag")
	for _, tr := range []string{"homes", "lazy", "eager"} {
		if tr != "eager" {
			needLazyPages(t)
		}
		stdout, stderr, err := capeRun("2", []string{"--transfer", tr}, hist, nil)
		if err == nil {
			t.Errorf("%s: the histogram without a reduction succeeded, printing %q (go run: %q)", tr, stdout, wantHist)
		} else if !strings.Contains(stderr, "nodes 0 and 1 both updated element [") || !strings.Contains(stderr, "reduction") {
			t.Errorf("%s: no error naming both nodes, the element and the reduction clause:\n%s", tr, stderr)
		}
		if stdout, stderr, err = capeRun("2", []string{"--transfer", tr}, hist, []string{"-reduce"}); err != nil || stdout != wantHist {
			t.Errorf("%s: the histogram with reduction(+:hist): %v, printed %q, want %q\n%s", tr, err, stdout, wantHist, stderr)
		}
		for _, nodes := range []string{"2", "3"} {
			if stdout, stderr, err = capeRun(nodes, []string{"--transfer", tr}, scatter, nil); err != nil || stdout != wantScatter {
				t.Errorf("%s, %s nodes: scatter: %v, printed %q, want %q\n%s", tr, nodes, err, stdout, wantScatter, stderr)
			}
			// Neighbouring iterations on different nodes write bytes,
			// int16s and fields of one word: different variables.
			if stdout, stderr, err = capeRun(nodes, []string{"--transfer", tr}, mixed, []string{"-fields"}); err != nil || stdout != wantFields {
				t.Errorf("%s, %s nodes: variables sharing words: %v, printed %q, want %q\n%s", tr, nodes, err, stdout, wantFields, stderr)
			}
		}
		// The last write of an element restores its entry value: only
		// the marks (cape.Mark) tell the nodes' writes apart.
		if stdout, stderr, err = capeRun("2", []string{"--transfer", tr}, restore, nil); err == nil {
			t.Errorf("%s: a write restoring the entry value lost to another node's, printing %q", tr, stdout)
		} else if !strings.Contains(stderr, "nodes 0 and 1 both wrote element [0] of the []int allocated at") || !strings.Contains(stderr, "left it with different values") {
			t.Errorf("%s: no error naming both nodes and the element:\n%s", tr, stderr)
		}
		if stdout, stderr, err = capeRun("3", []string{"--transfer", tr}, restore, []string{"-flag"}); err != nil || stdout != wantFlag {
			t.Errorf("%s: a flag and a permutation: %v, printed %q, want %q\n%s", tr, err, stdout, wantFlag, stderr)
		}
		// Two nodes writing 1 and 256 into one int: the bytes do not
		// collide, but the int would hold 257.
		stdout, stderr, err = capeRun("2", []string{"--transfer", tr}, mixed, nil)
		if err == nil {
			t.Errorf("%s: two nodes writing different bytes of one int succeeded, printing %q", tr, stdout)
		} else if !strings.Contains(stderr, "nodes 0 and 1 wrote different bytes of element [0] of the []int allocated at") {
			t.Errorf("%s: no error naming both nodes and the element:\n%s", tr, stderr)
		}
	}
}

// TestUpdatesThatRepeat: indices that look distinct per iteration but
// repeat (a narrowing conversion of the loop variable, a factor that is 0
// at run time, windows wider than their stride) printed a wrong answer
// with exit status 0 on several nodes; the merge now checks them, and the
// job stops naming the element two nodes updated.
func TestUpdatesThatRepeat(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	bin := sharedBuild(t, "./testdata/updates/repeats")
	for _, how := range []string{"ring", "stride", "window"} {
		for _, nodes := range []string{"2", "4"} {
			stdout, stderr, err := capeRun(nodes, nil, bin, []string{"-how", how})
			if err == nil || !strings.Contains(stderr, "both updated element [") && !strings.Contains(stderr, "both changed element [") {
				t.Errorf("%s on %s nodes: %v, printed %q, want an error naming the element both nodes updated\n%s", how, nodes, err, stdout, stderr)
			}
		}
	}
	// One node updates every element: go run's answer.
	want := goRun(t, "./testdata/updates/repeats", "-how", "window")
	if stdout, stderr, err := capeRun("1", nil, bin, []string{"-how", "window"}); err != nil || stdout != want {
		t.Errorf("one node: %v, printed %q, want %q\n%s", err, stdout, want, stderr)
	}
}

// TestWritesThroughCalls: one place written in every iteration through a
// call (an index a function computes, a function or method of the package
// writing through its argument or receiver, a method of another package)
// whose sequentially last write restores the entry value printed another
// node's value with exit status 0; the job now stops naming both nodes.
// Written by the last iteration only, the same calls print go run's
// answer: a mark records only the writes made.
func TestWritesThroughCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	bin := sharedBuild(t, "./testdata/updates/calls")
	for _, how := range []string{"index", "fn", "scatter", "method", "other"} {
		stdout, stderr, err := capeRun("2", nil, bin, []string{"-how", how})
		if err == nil || !strings.Contains(stderr, "nodes 0 and 1 ") {
			t.Errorf("%s: %v, printed %q, want an error naming both nodes\n%s", how, err, stdout, stderr)
		}
	}
	for _, how := range []string{"fn", "scatter", "other"} {
		want := goRun(t, "./testdata/updates/calls", "-how", how, "-last")
		if stdout, stderr, err := capeRun("3", nil, bin, []string{"-how", how, "-last"}); err != nil || stdout != want {
			t.Errorf("%s -last: %v, printed %q, want %q\n%s", how, err, stdout, want, stderr)
		}
	}
}

// TestForeignUpdates: updates through another package's code of elements
// several iterations share (a pointer handed over, a pointer method's
// fields, a named slice type's method) kept one node's share with exit
// status 0; the merge now stops the job, and where each iteration updates
// its own element the job prints go run's answer.
func TestForeignUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	bin := sharedBuild(t, "./testdata/updates/foreign")
	for _, how := range []string{"ptr", "method", "counts"} {
		for _, nodes := range []string{"2", "4"} {
			stdout, stderr, err := capeRun(nodes, nil, bin, []string{"-how", how})
			if err == nil || !strings.Contains(stderr, "nodes 0 and ") {
				t.Errorf("%s on %s nodes: %v, printed %q, want an error naming the nodes\n%s", how, nodes, err, stdout, stderr)
			}
		}
		want := goRun(t, "./testdata/updates/foreign", "-how", how, "-own")
		if stdout, stderr, err := capeRun("3", nil, bin, []string{"-how", how, "-own"}); err != nil || stdout != want {
			t.Errorf("%s -own: %v, printed %q, want %q\n%s", how, err, stdout, want, stderr)
		}
	}
}
