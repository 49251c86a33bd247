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
		}
	}
}
