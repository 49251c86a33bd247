package main

import (
	"net"
	"sync"
	"testing"

	"github.com/cape-go/cape/bench/baselines/mpnet"
)

// ranks runs workload work on n ranks in this process over loopback TCP
// and returns the root's line and every rank's counts.
func ranks(t *testing.T, work func(*job) (string, error), n, size, iters int) (string, []mpnet.Counter) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	lines := make([]string, n)
	counts := make([]mpnet.Counter, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() {
			l, err := mpnet.Connect(addr, r, n)
			if err != nil {
				errs[r] = err
				return
			}
			defer l.Close()
			j := &job{l: l, n: size, iters: iters}
			if lines[r], errs[r] = work(j); errs[r] == nil {
				errs[r] = l.Finish()
			}
			counts[r] = j.c
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d of %d: %v", r, n, err)
		}
	}
	return lines[0], counts
}

// TestRanksPrintTheSequentialLine checks that every workload prints on 2
// and 3 ranks the line of one rank (the sequential loop: one block), and
// what a middle rank receives per run.
func TestRanksPrintTheSequentialLine(t *testing.T) {
	for _, tc := range []struct {
		name        string
		size, iters int
		midRecv     int64 // bytes rank 1 of 3 receives over the run
	}{
		{"heat3d", 9, 4, 4 * 2 * 81 * 8}, // two planes a step
		{"cg", 9, 6, 6 * (2*9*8 + 2*8)},  // m entries of p from each side, two allreduced sums
		{"power", 10, 3, 3 * (8 + 10*8)}, // the max, and x whole
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := workloads[tc.name]
			want, _ := ranks(t, work, 1, tc.size, tc.iters)
			if want == "" {
				t.Fatal("no line from one rank")
			}
			if got, _ := ranks(t, work, 2, tc.size, tc.iters); got != want {
				t.Errorf("2 ranks printed\n%s\none printed\n%s", got, want)
			}
			got, counts := ranks(t, work, 3, tc.size, tc.iters)
			if got != want {
				t.Errorf("3 ranks printed\n%s\none printed\n%s", got, want)
			}
			if counts[1].Recv != tc.midRecv {
				t.Errorf("rank 1 of 3 received %d bytes, want %d", counts[1].Recv, tc.midRecv)
			}
		})
	}
}
