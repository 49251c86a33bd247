package cape

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/transport"
)

// The input stream's tests run the master's side (stdinShare) and the
// slaves' (stdinQueue) over real transport connections on loopback, with
// the programs' pipes replaced by sinks that check every byte, so that a
// cut connection, a slow program or a lost slave is seen exactly as a
// node would see it, without processes.

// stdinPattern is the byte at offset off of the tests' input.
func stdinPattern(off int64) byte { return byte(off*131 + off>>9 + 7) }

// stdinPatternInput is an input of n bytes of stdinPattern, then EOF (or err,
// if set); reads return at most 40 000 bytes (not a multiple of the
// chunk), as a pipe would.
type stdinPatternInput struct {
	n, off int64
	err    error
}

func (p *stdinPatternInput) Read(b []byte) (int, error) {
	if p.off >= p.n {
		if p.err != nil {
			return 0, p.err
		}
		return 0, io.EOF
	}
	k := int(min(int64(len(b)), p.n-p.off, 40000))
	for i := range k {
		b[i] = stdinPattern(p.off + int64(i))
	}
	p.off += int64(k)
	return k, nil
}

func (p *stdinPatternInput) Close() error { return nil }

// stdinSink stands for a program's pipe: it checks that the bytes written
// are the input's, from its start, and records the end of the input
// (Close). delay slows each write (a slow program); hold, while open,
// blocks writes (a program that does not read).
type stdinSink struct {
	delay time.Duration
	hold  chan struct{}

	mu     sync.Mutex
	n      int64
	bad    error
	closed bool
	eof    chan struct{} // closed by Close
}

func newStdinSink() *stdinSink { return &stdinSink{eof: make(chan struct{})} }

func (s *stdinSink) Write(p []byte) (int, error) {
	if s.hold != nil {
		<-s.hold
	}
	if s.delay > 0 {
		time.Sleep(s.delay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range p {
		if want := stdinPattern(s.n + int64(i)); c != want && s.bad == nil {
			s.bad = fmt.Errorf("byte %d is %#x, want %#x", s.n+int64(i), c, want)
		}
	}
	s.n += int64(len(p))
	return len(p), nil
}

func (s *stdinSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.eof)
	}
	return nil
}

// state returns the bytes written, whether the end was seen, and the
// first wrong byte.
func (s *stdinSink) state() (int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.closed, s.bad
}

// stdinRig is a master's stream to size-1 slaves, each with a sink.
type stdinRig struct {
	pm       *transport.Master
	share    *stdinShare
	queues   map[int]*stdinQueue
	sinks    map[int]*stdinSink // rank 0: the master's program
	jobErr   chan error         // the master's fail
	peerErrs chan error         // the master's peerErr
	slaveErr map[int]chan error // each slave's fail
}

// stdinTestConfig is the input connection's configuration of a job of
// size nodes, as stdinConfig makes it.
func stdinTestConfig(t *testing.T, size int) transport.Config {
	t.Helper()
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		t.Fatal(err)
	}
	n := &node{size: size, cfg: &nodeenv.Config{Token: tok, Job: 0x5eed, PeerTimeout: 5 * time.Second}}
	return n.stdinConfig()
}

// newStdinRig connects a master's stream to size-1 slaves and starts it
// on in. via[r], if set, makes slave r dial through it (a proxy); sinks
// holds the sinks to use (default: fast ones), rank 0 the master's.
func newStdinRig(t *testing.T, size int, in io.ReadCloser, window int64, via map[int]func(string) string, sinks map[int]*stdinSink) *stdinRig {
	t.Helper()
	cfg := stdinTestConfig(t, size)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	rig := &stdinRig{queues: map[int]*stdinQueue{}, sinks: map[int]*stdinSink{}, jobErr: make(chan error, 1),
		peerErrs: make(chan error, size), slaveErr: map[int]chan error{}}
	type dialled struct {
		rank int
		s    *transport.Slave
	}
	conns := make(chan dialled, size)
	for r := 1; r < size; r++ {
		addr := ln.Addr().String()
		if via[r] != nil {
			addr = via[r](addr)
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := transport.Dial(ctx, addr, r, cfg)
			if err != nil {
				t.Errorf("slave %d: %v", r, err)
			}
			conns <- dialled{r, s}
		}()
	}
	if rig.pm, err = transport.NewMaster(ln, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.pm.Close() })
	var ranks []int
	for r := 0; r < size; r++ {
		rig.sinks[r] = sinks[r]
		if rig.sinks[r] == nil {
			rig.sinks[r] = newStdinSink()
		}
		if r > 0 {
			ranks = append(ranks, r)
		}
	}
	for range size - 1 {
		d := <-conns
		if d.s == nil {
			t.FailNow()
		}
		c, r := d.s, d.rank
		errs := make(chan error, 1)
		rig.slaveErr[r] = errs
		q := newStdinQueue(c, window/4, func(err error) { errs <- err })
		rig.queues[r] = q
		t.Cleanup(func() { q.close() })
		q.start(rig.sinks[r])
	}
	rig.share = newStdinShare(rig.pm, ranks, window, func(err error) { rig.jobErr <- err },
		func(rank int, err error) { rig.peerErrs <- err })
	rig.share.start(in, rig.sinks[0])
	return rig
}

// stdinWait returns the first value of ch, or fails the test after d.
func stdinWait[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("no %s after %v", what, d)
	}
	var zero T
	return zero
}

// stdinCheckWhole checks that sink got the whole input of n bytes and its end.
func stdinCheckWhole(t *testing.T, who string, s *stdinSink, n int64) {
	t.Helper()
	stdinWait(t, s.eof, 30*time.Second, who+"'s end of input")
	got, _, bad := s.state()
	if bad != nil || got != n {
		t.Fatalf("%s got %d bytes of %d (%v)", who, got, n, bad)
	}
}

// stdinCutProxy forwards connections to target and resets both sides of each
// once after bytes went from target to the client, as a network cut (or
// ss -K) would.
func stdinCutProxy(t *testing.T, target string, after int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	reset := func(c net.Conn) {
		_ = c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go func() { _, _ = io.Copy(s, c) }()
			go func() {
				buf := make([]byte, 32<<10)
				var n int64
				for {
					k, err := s.Read(buf)
					if n+int64(k) >= after {
						_, _ = c.Write(buf[:after-n])
						reset(c)
						reset(s)
						return
					}
					if _, werr := c.Write(buf[:k]); werr != nil || err != nil {
						c.Close()
						return
					}
					n += int64(k)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestStdinCutIsNotEndOfInput cuts a slave's input connection mid-stream
// (a reset, as ss -K gives): the slave must report an error naming its
// input stream, its program must never see the end of its input, the
// master must report the slave's stream, and the master's program and the
// other slave must still get the whole input.
func TestStdinCutIsNotEndOfInput(t *testing.T) {
	const total = 8 << 20
	via := map[int]func(string) string{1: func(a string) string { return stdinCutProxy(t, a, 3<<20) }}
	rig := newStdinRig(t, 3, &stdinPatternInput{n: total}, 1<<20, via, nil)

	err := stdinWait(t, rig.slaveErr[1], 20*time.Second, "failure on the cut slave")
	if !errors.Is(err, transport.ErrConnLost) || !strings.Contains(err.Error(), "standard input stream from the master cut after") {
		t.Fatalf("slave 1 failed with %v, want a cut input stream (ErrConnLost)", err)
	}
	perr := stdinWait(t, rig.peerErrs, 20*time.Second, "master's report of the cut stream")
	var ne *transport.NodeError
	if !errors.As(perr, &ne) || ne.Rank != 1 || !strings.Contains(perr.Error(), "standard input stream") {
		t.Fatalf("the master reported %v, want node 1's standard input stream", perr)
	}
	stdinCheckWhole(t, "the master's program", rig.sinks[0], total)
	stdinCheckWhole(t, "slave 2", rig.sinks[2], total)
	time.Sleep(100 * time.Millisecond) // the cut slave's feed has drained its queue
	got, ended, bad := rig.sinks[1].state()
	if ended || bad != nil || got >= total {
		t.Fatalf("the cut slave's program got %d bytes of %d, end of input %v (%v): want a short input and no end", got, total, ended, bad)
	}
	select {
	case err := <-rig.jobErr:
		t.Fatalf("the master's input failed: %v", err)
	default:
	}
}

// fakeStdinConn is a slave's connection that replays msgs, then err.
type fakeStdinConn struct {
	msgs []transport.Message
	err  error
}

func (c *fakeStdinConn) Recv() (transport.Message, error) {
	if len(c.msgs) == 0 {
		if c.err == nil {
			select {} // the master said everything
		}
		return transport.Message{}, c.err
	}
	m := c.msgs[0]
	c.msgs = c.msgs[1:]
	return m, nil
}

func (c *fakeStdinConn) Send(transport.Message) error { return nil }

func (c *fakeStdinConn) Close() error { return nil }

// TestStdinEndOnlyWithTheCount feeds a slave's side scripted streams: the
// program sees the end of its input only after an end message whose count
// matches the bytes received; a short count, a gap, an unknown message or
// a lost connection fail the stream with the program's input left open;
// the master's orderly close neither fails nor ends it.
func TestStdinEndOnlyWithTheCount(t *testing.T) {
	data := func(off, n int64) transport.Message {
		p := make([]byte, n)
		for i := range p {
			p[i] = stdinPattern(off + int64(i))
		}
		return transport.Message{Kind: kindStdinData, Seq: uint64(off), Payload: p}
	}
	end := func(n uint64) transport.Message {
		return transport.Message{Kind: kindStdinEnd, Seq: n, Payload: binary.LittleEndian.AppendUint64(nil, n)}
	}
	lost := &transport.NodeError{Rank: 0, Addr: "x", Op: "recv", Err: transport.ErrConnLost}
	for _, tc := range []struct {
		name    string
		msgs    []transport.Message
		err     error
		wantErr error // nil: no failure
		wantEnd bool
	}{
		{"whole", []transport.Message{data(0, 1000), data(1000, 500), end(1500)}, nil, nil, true},
		{"empty", []transport.Message{end(0)}, nil, nil, true},
		{"cut", []transport.Message{data(0, 1000)}, lost, transport.ErrConnLost, false},
		{"short count", []transport.Message{data(0, 1000), end(2000)}, nil, errStdinProtocol, false},
		{"gap", []transport.Message{data(0, 1000), data(2000, 10)}, nil, errStdinProtocol, false},
		{"unknown kind", []transport.Message{data(0, 10), {Kind: kindStdinAck, Payload: make([]byte, 8)}}, nil, errStdinProtocol, false},
		{"timeout", nil, &transport.NodeError{Rank: 0, Op: "recv", Err: transport.ErrPeerTimeout}, transport.ErrPeerTimeout, false},
		{"master closed", []transport.Message{data(0, 100)}, &transport.NodeError{Rank: 0, Op: "recv", Err: transport.ErrPeerClosed}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := newStdinSink()
			errs := make(chan error, 1)
			q := newStdinQueue(&fakeStdinConn{msgs: tc.msgs, err: tc.err}, 1<<20, func(err error) { errs <- err })
			q.start(sink)
			if tc.wantEnd {
				stdinWait(t, sink.eof, 5*time.Second, "end of input")
			}
			var err error
			select {
			case err = <-errs:
			case <-time.After(200 * time.Millisecond):
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("failure %v, want %v", err, tc.wantErr)
			}
			var ne *transport.NodeError
			if errors.As(err, &ne) {
				t.Fatalf("failure %v blames node %d, want this node's input stream", err, ne.Rank)
			}
			if _, ended, bad := sink.state(); ended != tc.wantEnd || bad != nil {
				t.Fatalf("end of input %v, want %v (%v)", ended, tc.wantEnd, bad)
			}
		})
	}
}

// TestStdinMemoryBounded streams 48 MiB to a fast slave and a slow one
// (nothing for 200ms, then 1ms per write of at most 64 KiB): the bytes the master holds and each slave queues must
// never exceed the window and a chunk, and every program gets the whole
// input.
func TestStdinMemoryBounded(t *testing.T) {
	const total, window = 48 << 20, 2 << 20
	slow := newStdinSink()
	slow.delay, slow.hold = time.Millisecond, make(chan struct{})
	rig := newStdinRig(t, 3, &stdinPatternInput{n: total}, window, nil, map[int]*stdinSink{2: slow})
	time.Sleep(200 * time.Millisecond) // the slow program takes nothing yet: the stream fills the window
	close(slow.hold)
	for r := range 3 {
		stdinCheckWhole(t, fmt.Sprintf("node %d", r), rig.sinks[r], total)
	}
	const bound = window + stdinChunk
	rig.share.mu.Lock()
	peak, held := rig.share.peak, rig.share.held
	rig.share.mu.Unlock()
	if peak > bound {
		t.Errorf("the master held up to %d bytes, bound %d", peak, bound)
	}
	if held != 0 {
		t.Errorf("the master holds %d bytes after every consumer took the whole input", held)
	}
	for r, q := range rig.queues {
		q.mu.Lock()
		if q.peak > bound {
			t.Errorf("slave %d queued up to %d bytes, bound %d", r, q.peak, bound)
		}
		if r == 2 && q.peak < window/2 {
			t.Errorf("the slow slave queued at most %d bytes: the stream did not fill its window (%d) while it took nothing", q.peak, window)
		}
		q.mu.Unlock()
	}
}

// TestStdinLostSlaveHoldsNoOneBack gives slave 2 a program that does not
// read: the stream stops a window ahead of it, until the job declares it
// lost (drop); then the master's program and slave 1 get the whole input.
func TestStdinLostSlaveHoldsNoOneBack(t *testing.T) {
	const total, window = 16 << 20, 1 << 20
	stuck := newStdinSink()
	stuck.hold = make(chan struct{})
	defer close(stuck.hold)
	rig := newStdinRig(t, 3, &stdinPatternInput{n: total}, window, nil, map[int]*stdinSink{2: stuck})
	time.Sleep(300 * time.Millisecond)
	if got, _, _ := rig.sinks[0].state(); got >= total || got > 2*window+2*stdinChunk {
		t.Fatalf("the master's program got %d bytes while slave 2 took none: want at most the window (%d) and a few chunks", got, window)
	}
	rig.share.drop(2)
	stdinCheckWhole(t, "the master's program", rig.sinks[0], total)
	stdinCheckWhole(t, "slave 1", rig.sinks[1], total)
}

// TestStdinSlaveEndIsNotAFailure closes a slave's side in order while the
// master still streams (its program ended): the master must not report a
// failure, and the others get the whole input.
func TestStdinSlaveEndIsNotAFailure(t *testing.T) {
	const total, window = 8 << 20, 1 << 20
	rig := newStdinRig(t, 3, &stdinPatternInput{n: total}, window, nil, nil)
	time.Sleep(20 * time.Millisecond)
	if err := rig.queues[2].close(); err != nil {
		t.Fatal(err)
	}
	stdinCheckWhole(t, "the master's program", rig.sinks[0], total)
	stdinCheckWhole(t, "slave 1", rig.sinks[1], total)
	select {
	case err := <-rig.peerErrs:
		t.Fatalf("the master reported %v for a slave that ended in order", err)
	case err := <-rig.slaveErr[2]:
		t.Fatalf("the closed slave failed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestStdinReadErrorIsNotEndOfInput makes the master's real input fail
// after 1 MiB: the job must fail, and no program may see an end of input.
func TestStdinReadErrorIsNotEndOfInput(t *testing.T) {
	eio := errors.New("input/output error")
	rig := newStdinRig(t, 2, &stdinPatternInput{n: 1 << 20, err: eio}, 1<<20, nil, nil)
	if err := stdinWait(t, rig.jobErr, 10*time.Second, "job failure"); !errors.Is(err, eio) {
		t.Fatalf("the job failed with %v, want the read error", err)
	}
	time.Sleep(100 * time.Millisecond)
	for r, s := range rig.sinks {
		if _, ended, _ := s.state(); ended {
			t.Fatalf("node %d's program saw the end of its input after a read error", r)
		}
	}
}

// TestStdinTimeoutsFollowTheJob checks that --timeout sets the input
// connection's every timeout: a slave paused longer than the default
// write timeout must not lose its input.
func TestStdinTimeoutsFollowTheJob(t *testing.T) {
	n := &node{size: 2, cfg: &nodeenv.Config{Token: make([]byte, 32), PeerTimeout: 40 * time.Second}}
	c := n.stdinConfig()
	if c.PeerTimeout != 40*time.Second || c.IOTimeout != 40*time.Second || c.HandshakeTimeout < 40*time.Second {
		t.Fatalf("input connection timeouts: peer %v, write %v, handshake %v; want the job's 40s", c.PeerTimeout, c.IOTimeout, c.HandshakeTimeout)
	}
}
