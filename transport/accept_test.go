package transport

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// setRelayHook installs testHookRelayListen for the test.
func setRelayHook(t *testing.T, f func(rank int, ln net.Listener)) {
	t.Cleanup(func() { testHookRelayListen = nil })
	testHookRelayListen = f
}

// timeJob starts an 8-node job with relay links and returns how long
// NewMaster took (joining and the relay set-up).
func timeJob(t *testing.T, cfg Config) (time.Duration, *Master) {
	t.Helper()
	start := time.Now()
	m, _ := startJob(t, cfg, nil)
	return time.Since(start), m
}

// TestSilentRelayConnections opens silent connections to every relay
// listener before the relay parents dial it: the links must still come up,
// without waiting for the silent ones to time out.
func TestSilentRelayConnections(t *testing.T) {
	cfg := testConfig(8)
	cfg.Broadcast = BroadcastChain
	cfg.PeerTimeout = 10 * time.Second // the old set-up waited this long
	cfg.HandshakeTimeout = 10 * time.Second
	base, m := timeJob(t, cfg)
	if err := m.RelayErr(); err != nil {
		t.Fatalf("relay without the flood: %v", err)
	}

	var mu sync.Mutex
	var silent []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range silent {
			c.Close()
		}
	})
	setRelayHook(t, func(rank int, ln net.Listener) {
		for range 3 {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Errorf("silent connection to slave %d: %v", rank, err)
				return
			}
			mu.Lock()
			silent = append(silent, c)
			mu.Unlock()
		}
	})
	took, m := timeJob(t, cfg)
	if err := m.RelayErr(); err != nil {
		t.Fatalf("relay with silent connections: %v", err)
	}
	t.Logf("8 nodes: %v; with 3 silent connections to each relay listener: %v", base.Round(time.Millisecond), took.Round(time.Millisecond))
	if took > base+time.Second {
		t.Errorf("silent connections delayed the job by %v (limit 1s)", took-base)
	}
}

// TestRelayFailureNoticed closes one slave's relay listener: its parents
// cannot link to it, the job falls back to the star, and the notice names
// the slave.
func TestRelayFailureNoticed(t *testing.T) {
	cfg := testConfig(4)
	cfg.Broadcast = BroadcastChain
	var mu sync.Mutex
	var notes []string
	cfg.Notice = func(s string) {
		mu.Lock()
		notes = append(notes, s)
		mu.Unlock()
	}
	setRelayHook(t, func(rank int, ln net.Listener) {
		if rank == 3 {
			ln.Close()
		}
	})
	m, _ := startJob(t, cfg, nil)
	err := m.RelayErr()
	if err == nil || !strings.Contains(err.Error(), "link: node 3 (") {
		t.Fatalf("RelayErr %v, want a failed link to slave 3", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || !strings.Contains(notes[0], "link: node 3 (") || !strings.Contains(notes[0], "use the star") {
		t.Fatalf("notices %q, want one naming slave 3", notes)
	}
	t.Log(notes[0])
}

// TestHangDuringRelaySetup: a slave that joins and then hangs (sends
// nothing, not even heartbeats) during the relay set-up is found within
// about PeerTimeout, and the failure names it.
func TestHangDuringRelaySetup(t *testing.T) {
	cfg := testConfig(3)
	cfg.PeerTimeout = time.Second
	cfg.HandshakeTimeout = 20 * time.Second // the set-up used to wait up to 10s
	ln := listen(t)
	type result struct {
		m   *Master
		err error
	}
	ch := make(chan result, 1)
	start := time.Now()
	go func() {
		m, err := NewMaster(ln, cfg)
		ch <- result{m, err}
	}()
	go func() {
		s, err := Dial(t.Context(), ln.Addr().String(), 1, cfg)
		if err == nil {
			t.Cleanup(func() { s.Close() })
		}
	}()
	dialRaw(t, ln.Addr().String(), 2, cfg) // joins, then hangs
	r := await(t, 10*time.Second, "NewMaster", func() result { return <-ch })
	took := time.Since(start)
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { r.m.Close() })
	err := r.m.RelayErr()
	if !errors.Is(err, &NodeError{Rank: 2}) || !errors.Is(err, ErrPeerTimeout) {
		t.Fatalf("RelayErr %v, want node 2's peer timeout", err)
	}
	t.Logf("hang found after %v (PeerTimeout %v): %v", took.Round(time.Millisecond), cfg.PeerTimeout, err)
	if took > cfg.PeerTimeout+3*time.Second {
		t.Errorf("hang found after %v, PeerTimeout %v", took, cfg.PeerTimeout)
	}
	if _, err := r.m.Recv(2); !errors.Is(err, &NodeError{Rank: 2}) {
		t.Errorf("Recv(2): %v, want node 2's failure", err)
	}
}

// failingListener's Accept fails at once with a permanent error; it has a
// SetDeadline, as a *net.TCPListener does.
type failingListener struct{ net.Listener }

func (failingListener) Accept() (net.Conn, error)   { return nil, errors.New("accept broke") }
func (failingListener) SetDeadline(time.Time) error { return nil }

// TestAcceptErrorEndsJoin: a permanent accept error ends NewMaster at once
// with that error (it used to wait for the accept loop a second time).
func TestAcceptErrorEndsJoin(t *testing.T) {
	cfg := testConfig(2)
	_, err := await(t, 5*time.Second, "NewMaster", func() recvResult2 {
		_, err := NewMaster(failingListener{listen(t)}, cfg)
		return recvResult2{nil, err}
	}).unpack()
	if err == nil || !strings.Contains(err.Error(), "accept: accept broke") {
		t.Fatalf("NewMaster: %v", err)
	}
}

// TestDropSparesUnreadSpeakers checks the acceptor's choice of the
// handshake to drop: the oldest silent one, where a connection whose bytes
// wait unread (its goroutine has not read them yet) is not silent.
func TestDropSparesUnreadSpeakers(t *testing.T) {
	ln := listen(t)
	a := newAcceptor(ln, 2, nil)
	dialed := make([]net.Conn, 2)
	accepted := make([]*pending, 2)
	for i := range dialed {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		dialed[i] = c
		nc, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		accepted[i] = a.admit(nc)
	}
	// The older one spoke; nothing of it was read yet.
	if _, err := dialed[0].Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !hasInput(accepted[0].Conn) {
		if time.Now().After(deadline) {
			t.Fatal("the bytes written never arrived")
		}
		time.Sleep(time.Millisecond)
	}
	if !a.drop() {
		t.Fatal("nothing dropped")
	}
	if _, kept := a.pending[accepted[0]]; !kept {
		t.Fatal("dropped the older connection, whose bytes waited unread: want the silent newer one")
	}
	if _, kept := a.pending[accepted[1]]; kept {
		t.Fatal("kept the silent connection")
	}
	for p := range a.pending {
		p.Conn.Close()
	}
}
