package main

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cape-go/cape/bench/baselines/mpnet"
	"github.com/cape-go/cape/bench/stencilkernel"
)

// TestHaloRanksMatchSequential runs 3 ranks in one process, with a stranger
// connecting to the root first (a program dialing a port it used to know),
// and checks that the root's grid is bit for bit the sequential one and that
// the byte counts are the halo rows and the reduction.
func TestHaloRanksMatchSequential(t *testing.T) {
	const size, iters, ranks = 30, 7, 3
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	var wg sync.WaitGroup
	lines := make([]string, ranks)
	counts := make([]mpnet.Counter, ranks)
	errs := make([]error, ranks)
	start := func(r int) {
		wg.Go(func() { lines[r], counts[r], errs[r] = rank(addr, r, ranks, size, iters) })
	}
	start(0)
	// The stranger, before any rank: connects once the root listens and
	// says nothing the root expects.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the root does not listen: %v", err)
		}
	}
	for r := 1; r < ranks; r++ {
		start(r)
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	u, v := make([]float64, size*size), make([]float64, size*size)
	stencilkernel.Init(u, v, size)
	var diff float64
	for range iters {
		diff = stencilkernel.Sweep(u, v, size, 1, size-1)
		u, v = v, u
	}
	if want := stencilkernel.Line(u, size, iters, diff); lines[0] != want {
		t.Fatalf("3 ranks printed\n%s\nsequential\n%s", lines[0], want)
	}
	row := int64(size * 8 * iters)
	want := []mpnet.Counter{{Sent: row, Recv: row + 16*iters}, {Sent: 2*row + 8*iters, Recv: 2 * row}, {Sent: row + 8*iters, Recv: row}}
	for r := range ranks {
		if counts[r] != want[r] {
			t.Errorf("rank %d counted %+v, want %+v", r, counts[r], want[r])
		}
	}
}

// rank runs what run does for one rank and returns the root's line.
func rank(addr string, r, ranks, size, iters int) (string, mpnet.Counter, error) {
	l, err := connect(addr, r, ranks)
	if err != nil {
		return "", mpnet.Counter{}, err
	}
	defer l.Close()
	u, v := make([]float64, size*size), make([]float64, size*size)
	stencilkernel.Init(u, v, size)
	lo, hi := stencilkernel.Rows(size, r, ranks)
	var c mpnet.Counter
	var diff float64
	for it := range iters {
		d := stencilkernel.Sweep(u, v, size, lo, hi)
		if err := l.exchange(v, size, lo, hi, &c); err != nil {
			return "", c, fmt.Errorf("iteration %d: %w", it, err)
		}
		u, v = v, u
		if diff, err = l.reduceMax(d, &c); err != nil {
			return "", c, err
		}
	}
	if err := l.gather(u, size); err != nil {
		return "", c, err
	}
	line := ""
	if r == 0 {
		line = stencilkernel.Line(u, size, iters, diff)
	}
	return line, c, l.Finish()
}
