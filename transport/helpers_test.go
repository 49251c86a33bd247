package transport

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

var testToken = []byte("0123456789abcdef-test-token-32by")

func testConfig(size int) Config {
	return Config{
		Token:             testToken,
		JobID:             0xC0FFEE,
		Size:              size,
		HandshakeTimeout:  5 * time.Second,
		IOTimeout:         2 * time.Second,
		PeerTimeout:       2 * time.Second,
		HeartbeatInterval: 50 * time.Millisecond,
	}
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// await runs f and fails the test if it takes longer than d.
func await[T any](t testing.TB, d time.Duration, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
		panic("unreachable")
	}
}

type recvResult struct {
	msg Message
	err error
}

// startJob starts a master and its slaves (index = rank) on loopback.
func startJob(t testing.TB, mcfg Config, scfg func(rank int) Config) (*Master, []*Slave) {
	t.Helper()
	ln := listen(t)
	if scfg == nil {
		scfg = func(int) Config { return mcfg }
	}
	slaves := make([]*Slave, mcfg.Size)
	errs := make([]error, mcfg.Size)
	var wg sync.WaitGroup
	for rank := 1; rank < mcfg.Size; rank++ {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			slaves[rank], errs[rank] = Dial(ctx, ln.Addr().String(), rank, scfg(rank))
		})
	}
	m, err := NewMaster(ln, mcfg)
	wg.Wait()
	if err != nil {
		t.Fatalf("NewMaster: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	for rank, s := range slaves[1:] {
		if errs[rank+1] != nil {
			t.Fatalf("Dial rank %d: %v", rank+1, errs[rank+1])
		}
		t.Cleanup(func() { s.Close() })
	}
	return m, slaves
}

// wantNodeErr checks that err is a *NodeError about rank wrapping target.
func wantNodeErr(t testing.TB, err error, rank int, target error) *NodeError {
	t.Helper()
	var ne *NodeError
	if !errors.As(err, &ne) {
		t.Fatalf("error %v (%T), want a *NodeError", err, err)
	}
	if ne.Rank != rank {
		t.Errorf("error %v names rank %d, want %d", err, ne.Rank, rank)
	}
	if !strings.Contains(err.Error(), "127.0.0.1:") {
		t.Errorf("error %q does not name the address", err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %v does not match %v", err, target)
	}
	return ne
}

// bufConn collects a frameWriter's output.
type bufConn struct{ bytes.Buffer }

func (*bufConn) SetWriteDeadline(time.Time) error { return nil }

// rawPeer is one side of an authenticated connection driven by hand: the
// test writes frames (possibly tampered with) directly on the socket.
type rawPeer struct {
	nc  net.Conn
	out *macer // this side's sending direction
	in  *macer // the other direction (set by dialRaw)
}

// frames encodes a message as this peer would send it, advancing the
// counter.
func (p *rawPeer) frames(t testing.TB, kind uint8, seq uint64, payload []byte) []byte {
	t.Helper()
	var b bufConn
	fw := frameWriter{w: &b, timeout: time.Second, mac: p.out}
	if err := fw.writeMessage(kind, seq, payload); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// dialRaw connects to a master as rank and authenticates by hand.
func dialRaw(t testing.TB, addr string, rank int, cfg Config) *rawPeer {
	t.Helper()
	cfg, err := cfg.normalize()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	keys, err := slaveHandshake(nc, rank, &cfg)
	if err != nil {
		t.Fatalf("raw handshake: %v", err)
	}
	nc.SetDeadline(time.Time{})
	out, err := newMacer(keys.toMaster[:])
	if err != nil {
		t.Fatal(err)
	}
	in, err := newMacer(keys.toSlave[:])
	if err != nil {
		t.Fatal(err)
	}
	return &rawPeer{nc: nc, out: out, in: in}
}

// rawMasterJob starts a master of size 2 whose only slave is driven by
// hand.
func rawMasterJob(t testing.TB, cfg Config) (*Master, *rawPeer) {
	t.Helper()
	ln := listen(t)
	type result struct {
		m   *Master
		err error
	}
	ch := make(chan result, 1)
	go func() {
		m, err := NewMaster(ln, cfg)
		ch <- result{m, err}
	}()
	p := dialRaw(t, ln.Addr().String(), 1, cfg)
	r := <-ch
	if r.err != nil {
		t.Fatalf("NewMaster: %v", r.err)
	}
	t.Cleanup(func() { r.m.Close() })
	return r.m, p
}

// acceptRaw accepts one slave on ln in a goroutine and authenticates it by
// hand, as a (possibly fake) master would; the channel yields the peer, or
// nil after reporting an error.
func acceptRaw(t testing.TB, ln net.Listener, cfg Config) <-chan *rawPeer {
	t.Helper()
	ch := make(chan *rawPeer, 1)
	cfg, err := cfg.normalize()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		p, err := acceptRaw1(ln, &cfg)
		if err != nil {
			t.Errorf("raw master: %v", err)
		} else {
			t.Cleanup(func() { p.nc.Close() })
		}
		ch <- p
	}()
	return ch
}

func acceptRaw1(ln net.Listener, cfg *Config) (*rawPeer, error) {
	nc, err := ln.Accept()
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	claim := func(int, string) (func(), error) { return func() {}, nil }
	_, keys, err := masterHandshake(nc, cfg, claim, nc.RemoteAddr().String())
	if err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	out, err := newMacer(keys.toSlave[:])
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &rawPeer{nc: nc, out: out}, nil
}
