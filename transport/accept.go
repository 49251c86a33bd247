package transport

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits of the accept loops: NewMaster's and each slave's relay listener.
const (
	// pendingBase plus the job's size bounds the handshakes in progress on
	// one listener: a flood of unauthenticated connections holds at most
	// that many descriptors.
	pendingBase = 64
	// maxHandshake bounds one handshake (PeerTimeout too, if shorter, but
	// not below minHandshake): a peer that holds the token answers within
	// a few round trips.
	maxHandshake = 5 * time.Second
	minHandshake = time.Second
	// maxAcceptBackoff bounds the wait after a temporary accept error.
	maxAcceptBackoff = 500 * time.Millisecond
)

// handshakeTimeout is the deadline of one handshake on an accepted
// connection.
func handshakeTimeout(cfg *Config) time.Duration {
	return min(maxHandshake, max(cfg.PeerTimeout, minHandshake), cfg.HandshakeTimeout)
}

// pending is an accepted connection whose handshake is in progress. Its
// Read notes whether the peer sent anything: a silent connection is the
// first to be dropped when the limit is reached.
type pending struct {
	net.Conn             // the accepted connection
	seq      uint64      // arrival order
	heard    atomic.Bool // the peer sent at least one byte
}

func (p *pending) Read(b []byte) (int, error) {
	n, err := p.Conn.Read(b)
	if n > 0 {
		p.heard.Store(true)
	}
	return n, err
}

// acceptor accepts connections on a listener and runs serve on each in its
// own goroutine, with at most max handshakes in progress: beyond that the
// oldest connection that sent nothing (or else the oldest) is closed. An
// accept error that a flood or a transient shortage causes (EMFILE, ENFILE,
// ECONNABORTED, ENOBUFS, ENOMEM) is retried: after dropping the oldest
// handshake if descriptors ran out, else after a back-off.
//
// It is safe for concurrent use. serve must call done once the handshake
// is over and stop using the connection if done returns false.
type acceptor struct {
	ln    net.Listener
	max   int
	serve func(p *pending)
	wg    sync.WaitGroup // serve goroutines

	mu sync.Mutex
	// mu protects the following fields.
	pending map[*pending]struct{}
	seq     uint64
	stopped bool
	dropped int // connections closed to make room
}

func newAcceptor(ln net.Listener, max int, serve func(p *pending)) *acceptor {
	return &acceptor{ln: ln, max: max, serve: serve, pending: map[*pending]struct{}{}}
}

// run accepts until stop is closed (it returns nil) or Accept fails with
// an error that is not temporary, such as the listener's deadline (it
// returns that error).
func (a *acceptor) run(stop <-chan struct{}) error {
	var backoff time.Duration
	for {
		nc, err := a.ln.Accept()
		if err != nil {
			if closed(stop) {
				return nil
			}
			if !temporaryAccept(err) {
				return err
			}
			if outOfFiles(err) && a.drop() {
				continue
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), maxAcceptBackoff)
			t := time.NewTimer(backoff)
			select {
			case <-stop:
				t.Stop()
				return nil
			case <-t.C:
			}
			continue
		}
		backoff = 0
		p := a.admit(nc)
		if p == nil {
			nc.Close()
			return nil
		}
		go func() {
			defer a.wg.Done()
			a.serve(p)
		}()
	}
}

// admit registers nc, dropping a handshake if the limit is reached; nil
// once stopped.
func (a *acceptor) admit(nc net.Conn) *pending {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return nil
	}
	if len(a.pending) >= a.max {
		a.dropLocked()
	}
	a.seq++
	p := &pending{Conn: nc, seq: a.seq}
	a.pending[p] = struct{}{}
	a.wg.Add(1)
	return p
}

func (a *acceptor) drop() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dropLocked()
}

// dropLocked closes the oldest silent handshake, or else the oldest. A
// connection whose bytes wait unread (its handshake's goroutine has not
// run yet) is not silent: under a flood on a loaded machine, a real peer
// was otherwise dropped before its first message was read, at every try.
func (a *acceptor) dropLocked() bool {
	var victim *pending
	for {
		victim = nil
		for p := range a.pending {
			if victim == nil || older(p, victim) {
				victim = p
			}
		}
		if victim == nil {
			return false
		}
		if victim.heard.Load() || !hasInput(victim.Conn) {
			break
		}
		victim.heard.Store(true)
	}
	delete(a.pending, victim)
	a.dropped++
	victim.Conn.Close()
	return true
}

// older reports whether p goes before q: silent first, then by arrival.
func older(p, q *pending) bool {
	if hp, hq := p.heard.Load(), q.heard.Load(); hp != hq {
		return !hp
	}
	return p.seq < q.seq
}

// done ends p's handshake; it returns false if p was dropped meanwhile
// (its connection is closed).
func (a *acceptor) done(p *pending) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.pending[p]
	delete(a.pending, p)
	return ok
}

// shutdown stops admitting, closes the connections still in handshake and
// waits for every serve to return. It returns how many connections were
// dropped to make room.
func (a *acceptor) shutdown() int {
	a.mu.Lock()
	a.stopped = true
	for p := range a.pending {
		p.Conn.Close()
	}
	clear(a.pending)
	dropped := a.dropped
	a.mu.Unlock()
	a.wg.Wait()
	return dropped
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// temporaryAccept reports whether an accept error is worth retrying: a
// connection aborted before it was accepted, or a resource shortage.
func temporaryAccept(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ECONNABORTED,
		syscall.ENOBUFS, syscall.ENOMEM, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func outOfFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
