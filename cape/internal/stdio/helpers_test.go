package stdio

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// The input stream's tests run the master's side (Share) and the slaves'
// (Queue) over an in-memory twin of the transport (pipenet_test.go) or,
// for the wiring, over the real transport on loopback, with the programs'
// pipes replaced by sinks that check every byte, so that a cut
// connection, a slow program or a lost slave is seen exactly as a node
// would see it, without processes.

// pattern is the byte at offset off of the tests' input.
func pattern(off int64) byte { return byte(off*131 + off>>9 + 7) }

// patternInput is an input of n bytes of pattern, then EOF (or err, if
// set); reads return at most 40 000 bytes (not a multiple of the chunk),
// as a pipe would.
type patternInput struct {
	n, off int64
	err    error
}

func (p *patternInput) Read(b []byte) (int, error) {
	if p.off >= p.n {
		if p.err != nil {
			return 0, p.err
		}
		return 0, io.EOF
	}
	k := int(min(int64(len(b)), p.n-p.off, 40000))
	for i := range k {
		b[i] = pattern(p.off + int64(i))
	}
	p.off += int64(k)
	return k, nil
}

func (p *patternInput) Close() error { return nil }

// sink stands for a program's pipe: it checks that the bytes written are
// the input's, from its start, and records the end of the input (Close).
// delay slows each write (a slow program); hold, while open, blocks
// writes (a program that does not read).
type sink struct {
	delay time.Duration
	hold  chan struct{}

	mu     sync.Mutex
	n      int64
	bad    error
	closed bool
	eof    chan struct{} // closed by Close
}

func newSink() *sink { return &sink{eof: make(chan struct{})} }

func (s *sink) Write(p []byte) (int, error) {
	if s.hold != nil {
		<-s.hold
	}
	if s.delay > 0 {
		time.Sleep(s.delay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range p {
		if want := pattern(s.n + int64(i)); c != want && s.bad == nil {
			s.bad = fmt.Errorf("byte %d is %#x, want %#x", s.n+int64(i), c, want)
		}
	}
	s.n += int64(len(p))
	return len(p), nil
}

func (s *sink) Close() error {
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
func (s *sink) state() (int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.closed, s.bad
}

// rig is a master's stream to size-1 slaves, each with a sink.
type rig struct {
	share    *Share
	queues   map[int]*Queue
	sinks    map[int]*sink      // rank 0: the master's program
	jobErr   chan error         // the master's fail
	peerErrs chan error         // the master's peerErr
	slaveErr map[int]chan error // each slave's fail
}

// startRig starts a master's stream on in to the slaves connected by pm
// and conns (by rank), holding window bytes ahead. sinks holds the sinks
// to use (default: fast ones), rank 0 the master's.
func startRig(t *testing.T, pm Peers, conns map[int]Conn, in io.ReadCloser, window int64, sinks map[int]*sink) *rig {
	t.Helper()
	size := len(conns) + 1
	r := &rig{queues: map[int]*Queue{}, sinks: map[int]*sink{}, jobErr: make(chan error, 1),
		peerErrs: make(chan error, size), slaveErr: map[int]chan error{}}
	var ranks []int
	for rank := range size {
		r.sinks[rank] = sinks[rank]
		if r.sinks[rank] == nil {
			r.sinks[rank] = newSink()
		}
		if rank == 0 {
			continue
		}
		ranks = append(ranks, rank)
		errs := make(chan error, 1)
		r.slaveErr[rank] = errs
		q := NewQueue(conns[rank], window/4, func(err error) { errs <- err })
		r.queues[rank] = q
		t.Cleanup(func() { q.Close() })
		q.Start(r.sinks[rank])
	}
	r.share = NewShare(pm, ranks, window, func(err error) { r.jobErr <- err },
		func(rank int, err error) { r.peerErrs <- err })
	t.Cleanup(func() { r.share.Close() })
	r.share.Start(in, r.sinks[0])
	return r
}

// wait returns the first value of ch, or fails the test after d.
func wait[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
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

// checkWhole checks that s got the whole input of n bytes and its end.
func checkWhole(t *testing.T, who string, s *sink, n int64) {
	t.Helper()
	wait(t, s.eof, 30*time.Second, who+"'s end of input")
	got, _, bad := s.state()
	if bad != nil || got != n {
		t.Fatalf("%s got %d bytes of %d (%v)", who, got, n, bad)
	}
}
