package transport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Master is rank 0's end of a job: one authenticated connection to each
// slave. It is safe for concurrent use: Send, Recv and Broadcast may run
// concurrently with each other and with Recv for other ranks; Gather calls
// are serialized and should not run concurrently with Recv on the same
// ranks (they would share the messages).
type Master struct {
	cfg    Config
	peers  []*conn       // index rank; peers[0] is nil; fixed after NewMaster
	notify chan struct{} // cap 1: a message or failure arrived on some peer

	gatherMu sync.Mutex // serializes Gather

	// extra holds the nodes admitted after NewMaster (Admit), index rank
	// - Size; an entry is set once, under dropMu.
	extra []atomic.Pointer[conn]

	dropMu sync.Mutex
	// dropMu protects the following fields.
	dropped  []bool // index rank: Exclude or Drop was called (joining ranks: until Include)
	reserved []bool // index rank - Size: a joining node claimed the rank
	admit    func() // stops Admit's accepting, or nil

	closeOnce sync.Once
	closed    chan struct{}

	relay masterRelay
}

// joiner tracks the ranks taken during NewMaster.
type joiner struct {
	size  int // the job's size: ranks from it on join later (Admit)
	mu    sync.Mutex
	taken map[int]string // rank → address; protected by mu
}

func (j *joiner) claim(rank int, addr string) (func(), error) {
	if rank >= j.size {
		return nil, fmt.Errorf("%w: rank %d is for a node joining the running job, not yet started", ErrRejected, rank)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if prev, ok := j.taken[rank]; ok {
		return nil, fmt.Errorf("%w: duplicate rank %d (already joined from %s)", ErrRejected, rank, prev)
	}
	j.taken[rank] = addr
	return func() {
		j.mu.Lock()
		delete(j.taken, rank)
		j.mu.Unlock()
	}, nil
}

type joinResult struct {
	c   *conn
	err error
}

// NewMaster accepts connections on ln until Size-1 distinct slaves have
// authenticated, or HandshakeTimeout has passed. Handshakes run
// concurrently; a failed one does not stop the others, and is reported
// (joined to an ErrJoinTimeout) only if not every slave joins in time.
//
// NewMaster does not close ln, and does not accept after it returns; it
// sets and then clears ln's deadline if ln has a SetDeadline method (as
// *net.TCPListener does). With a listener without one, its accept goroutine
// only ends when the caller closes ln.
func NewMaster(ln net.Listener, cfg Config) (*Master, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	m := &Master{
		cfg:    cfg,
		peers:  make([]*conn, cfg.Size),
		notify: make(chan struct{}, 1),
		closed: make(chan struct{}),
		relay:  masterRelay{setup: make(chan relaySetupMsg, 2*cfg.Size)},

		dropped:  make([]bool, cfg.Size+cfg.MaxJoin),
		extra:    make([]atomic.Pointer[conn], cfg.MaxJoin),
		reserved: make([]bool, cfg.MaxJoin),
	}
	for rank := cfg.Size; rank < len(m.dropped); rank++ {
		m.dropped[rank] = true // not joined yet
	}
	if cfg.Size == 1 {
		return m, nil
	}
	if err := m.join(ln); err != nil {
		m.Close()
		return nil, err
	}
	if relayEnabled(&m.cfg) {
		m.setupRelay()
	}
	return m, nil
}

func (m *Master) join(ln net.Listener) error {
	cfg := &m.cfg
	start := time.Now()
	deadline := start.Add(cfg.HandshakeTimeout)
	dl, hasDeadline := ln.(interface{ SetDeadline(time.Time) error })
	if hasDeadline {
		if err := dl.SetDeadline(deadline); err != nil {
			return fmt.Errorf("listener deadline: %w", err)
		}
	}
	j := &joiner{size: cfg.Size, taken: make(map[int]string)}
	results := make(chan joinResult)
	stop := make(chan struct{})
	var a *acceptor
	a = newAcceptor(ln, pendingBase+cfg.Size, func(p *pending) {
		r := m.handshake(p, a, j, deadline)
		select {
		case results <- r:
		case <-stop:
			if r.c != nil {
				r.c.close()
			}
		}
	})
	acceptErr := make(chan error, 1)
	acceptDone := make(chan struct{})
	go func() {
		defer close(acceptDone)
		acceptErr <- a.run(stop)
	}()

	jr := m.collect(results, acceptErr, deadline)

	// Stop accepting and abort the handshakes still running.
	close(stop)
	dropped := a.shutdown()
	if hasDeadline {
		_ = dl.SetDeadline(time.Unix(1, 0))
		<-acceptDone
		_ = dl.SetDeadline(time.Time{})
	}
	if jr.failure == nil {
		return nil
	}
	return m.joinError(jr, dropped, time.Since(start))
}

// joinState is what collect saw of the handshakes.
type joinState struct {
	joined  int
	rejects []error // failed handshakes, at most maxRejects
	more    int     // failed handshakes beyond those
	failure error   // ErrJoinTimeout or an accept error; nil once all joined
}

// maxRejects bounds the failed handshakes a join error lists.
const maxRejects = 16

// collect gathers the slaves' connections until every slave joined, the
// deadline passed or accepting failed.
func (m *Master) collect(results <-chan joinResult, acceptErr <-chan error, deadline time.Time) joinState {
	var st joinState
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for st.joined < m.cfg.Size-1 && st.failure == nil {
		select {
		case r := <-results:
			if r.err == nil {
				m.peers[r.c.rank] = r.c
				st.joined++
			} else if len(st.rejects) < maxRejects {
				st.rejects = append(st.rejects, r.err)
			} else {
				st.more++
			}
		case err := <-acceptErr:
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				st.failure = ErrJoinTimeout
			} else {
				st.failure = fmt.Errorf("accept: %w", err)
			}
		case <-timer.C:
			st.failure = ErrJoinTimeout
		}
	}
	return st
}

// joinError describes a join that failed: the missing ranks, then the
// failed handshakes.
func (m *Master) joinError(st joinState, dropped int, took time.Duration) error {
	var missing []int
	for rank := 1; rank < m.cfg.Size; rank++ {
		if m.peers[rank] == nil {
			missing = append(missing, rank)
		}
	}
	failure := st.failure
	if failure == ErrJoinTimeout {
		failure = fmt.Errorf("%w: %d of %d slaves joined within %v, missing ranks %s",
			ErrJoinTimeout, st.joined, m.cfg.Size-1, took.Round(time.Millisecond), rankRanges(missing))
	}
	errs := append([]error{failure}, st.rejects...)
	if st.more > 0 || dropped > 0 {
		errs = append(errs, fmt.Errorf("and %d more failed handshakes, %d connections dropped beyond %d in handshake at once",
			st.more, dropped, pendingBase+m.cfg.Size))
	}
	return errors.Join(errs...)
}

// rankRanges writes ranks, ascending, as runs: "[3 7-9 12]" (a thousand
// missing ranks listed one by one filled the screen).
func rankRanges(ranks []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ranks[i], ranks[j])
		} else {
			fmt.Fprintf(&b, "%d", ranks[i])
		}
		i = j + 1
	}
	b.WriteByte(']')
	return b.String()
}

// handshake authenticates one accepted connection.
func (m *Master) handshake(p *pending, a *acceptor, j *joiner, deadline time.Time) joinResult {
	addr := p.RemoteAddr().String()
	fail := func(rank int, op string, err error) joinResult {
		a.done(p)
		p.Conn.Close()
		return joinResult{err: &NodeError{Rank: rank, Addr: addr, Op: op, Err: err}}
	}
	if err := p.SetDeadline(earliest(deadline, time.Now().Add(handshakeTimeout(&m.cfg)))); err != nil {
		return fail(-1, "handshake", err)
	}
	// Once authenticated, the connection is no longer one the acceptor
	// may drop: it leaves the pending set before it claims its rank.
	claim := func(rank int, addr string) (func(), error) {
		if !a.done(p) {
			return nil, fmt.Errorf("%w: dropped: too many connections in handshake at once", ErrConnLost)
		}
		return j.claim(rank, addr)
	}
	rank, keys, err := masterHandshake(p, &m.cfg, claim, addr)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("%w: handshake unfinished after %v", ErrPeerTimeout, handshakeTimeout(&m.cfg))
	}
	if err != nil {
		return fail(rank, "handshake", err)
	}
	a.done(p)
	c, err := newConnHooks(p.Conn, rank, &m.cfg, keys.toSlave[:], keys.toMaster[:], m.notify, m.hooks())
	if err != nil {
		return fail(rank, "handshake", err)
	}
	return joinResult{c: c}
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (m *Master) peer(rank int) (*conn, error) {
	if rank >= 1 && rank < len(m.peers) {
		return m.peers[rank], nil
	}
	if i := rank - len(m.peers); i >= 0 && i < len(m.extra) {
		if c := m.extra[i].Load(); c != nil {
			return c, nil
		}
		return nil, fmt.Errorf("%w: rank %d has not joined", ErrConfig, rank)
	}
	return nil, fmt.Errorf("%w: rank %d out of range [1, %d)", ErrConfig, rank, len(m.peers)+len(m.extra))
}

// Send sends msg to the slave of the given rank. It returns once the message
// is written to the socket; msg.Payload may be reused then. Errors are
// *NodeError, or ErrClosed.
func (m *Master) Send(rank int, msg Message) error {
	c, err := m.peer(rank)
	if err != nil {
		return err
	}
	return c.send(msg)
}

// Recv returns the next message from the slave of the given rank, blocking
// until one arrives, the connection fails (a *NodeError naming the slave),
// or the Master is closed (ErrClosed). Messages that arrived before a
// failure are returned first.
func (m *Master) Recv(rank int) (Message, error) {
	c, err := m.peer(rank)
	if err != nil {
		return Message{}, err
	}
	return c.recv()
}

// Broadcast sends msg to every slave but those dropped. It waits for the master's own sends
// and returns the first error in time (a *NodeError), if any. The scheme
// is Config.Broadcast: with the star the master sends msg to every slave
// concurrently; with the tree or the chain it sends msg to one or two
// slaves, which forward it chunk by chunk (a slave whose relay parent
// fails gets the failure from Recv). Either way each slave receives msg in
// its place among the master's other messages.
func (m *Master) Broadcast(msg Message) error {
	if msg.Kind < MinKind {
		return fmt.Errorf("%w: kind %d", ErrReservedKind, msg.Kind)
	}
	m.relay.mu.Lock()
	on := m.relay.on
	m.relay.mu.Unlock()
	if on {
		if kind := chooseScheme(m.cfg.Broadcast, len(msg.Payload), len(m.peers)); kind != 0 {
			return m.broadcastRelayed(kind, msg)
		}
	}
	if len(msg.Payload) < inlineBroadcast {
		// Small: each write returns as soon as the bytes are in the
		// socket buffer, so one goroutine costs less than one per slave.
		var first error
		for rank, c := range m.peers {
			if rank == 0 || m.isDropped(rank) {
				continue
			}
			if err := c.send(msg); err != nil && first == nil {
				first = err
			}
		}
		m.eachJoined(func(_ int, c *conn) {
			if err := c.send(msg); err != nil && first == nil {
				first = err
			}
		})
		return first
	}
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for rank, c := range m.peers {
		if rank == 0 || m.isDropped(rank) {
			continue
		}
		wg.Go(func() {
			if err := c.send(msg); err != nil {
				once.Do(func() { first = err })
			}
		})
	}
	m.eachJoined(func(_ int, c *conn) {
		wg.Go(func() {
			if err := c.send(msg); err != nil {
				once.Do(func() { first = err })
			}
		})
	})
	wg.Wait()
	return first
}

// inlineBroadcast is the payload size below which the star's Broadcast
// writes to the slaves one after the other from the caller's goroutine.
const inlineBroadcast = 64 << 10

// Gather returns one message from each slave, indexed by rank (index 0 is
// empty; so are the dropped slaves'). It returns as soon as one slave's
// connection fails, with that *NodeError and the messages received so far;
// the others stay queued.
func (m *Master) Gather() ([]Message, error) { return m.GatherInto(nil) }

// GatherInto is Gather into out, which it empties and grows to Size
// entries: a caller that keeps out from one call to the next allocates
// nothing for it. It returns the slice it filled.
func (m *Master) GatherInto(out []Message) ([]Message, error) {
	m.gatherMu.Lock()
	defer m.gatherMu.Unlock()
	ranks := len(m.peers) + len(m.extra)
	if cap(out) < ranks {
		out = make([]Message, ranks)
	}
	out = out[:ranks]
	clear(out)
	// A slave's message has a kind ≥ MinKind: a zero kind is a rank
	// still to hear from.
	left := 0
	for rank := 1; rank < ranks; rank++ {
		if !m.isDropped(rank) {
			left++
		}
	}
	for rank, c := range m.peers {
		if rank != 0 && !m.isDropped(rank) {
			c.wakeReader() // Gather does not read the sockets itself
		}
	}
	for left > 0 {
		for rank := 1; rank < ranks; rank++ {
			if out[rank].Kind != 0 || m.isDropped(rank) {
				continue
			}
			c, _ := m.peer(rank)
			msg, ok, err := c.tryRecv()
			if err != nil {
				return out, err
			}
			if ok {
				out[rank] = msg
				left--
			}
		}
		if left == 0 {
			break
		}
		select {
		case <-m.notify:
		case <-m.closed:
			return out, ErrClosed
		}
	}
	return out, nil
}

// Release gives back p, the payload of a message received from the slave
// of the given rank, once the caller and everything aliasing it are done
// with it: the connection may reuse its memory for a later message. Each
// payload may be given back once; giving none back is fine.
func (m *Master) Release(rank int, p []byte) {
	if c, err := m.peer(rank); err == nil {
		c.release(p)
	}
}

// Size returns the number of nodes, the master included.
func (m *Master) Size() int { return len(m.peers) }

// WaitClosed waits until every slave has ended its connection (its
// goodbye, as Slave.Close sends, or a failure), or timeout has passed
// (PeerTimeout if timeout ≤ 0), or the Master is closed. A master about to
// Close calls it so that the job stays up until every slave has received,
// and forwarded to its relay children, everything it needed: the slaves'
// watchdogs, which end a slave whose master is gone, do not cut them short.
// It returns nil, ErrClosed, or an ErrPeerTimeout naming the slaves still
// connected.
func (m *Master) WaitClosed(timeout time.Duration) error {
	if timeout <= 0 {
		timeout = m.cfg.PeerTimeout
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, c := range m.peers {
		if c != nil {
			c.wakeReader() // the goodbyes are read by the reader goroutines
		}
	}
	for rank, c := range m.peers {
		if c == nil {
			continue
		}
		select {
		case <-c.dead:
		case <-m.closed:
			return ErrClosed
		case <-t.C:
			var open []int
			for r, c := range m.peers[rank:] {
				if c != nil && !c.isDead() {
					open = append(open, rank+r)
				}
			}
			return fmt.Errorf("%w: slaves %v still connected after %v", ErrPeerTimeout, open, timeout)
		}
	}
	var err error
	m.eachJoined(func(rank int, c *conn) {
		if err != nil {
			return
		}
		select {
		case <-c.dead:
		case <-m.closed:
			err = ErrClosed
		case <-t.C:
			err = fmt.Errorf("%w: joined node %d still connected after %v", ErrPeerTimeout, rank, timeout)
		}
	})
	return err
}

// Close says goodbye to every slave and closes the connections gracefully
// (see Slave.Close), and waits for the connections' goroutines. Blocked and
// later calls return ErrClosed at once. Close is idempotent and always
// returns nil.
func (m *Master) Close() error {
	m.closeOnce.Do(func() {
		close(m.closed)
		m.dropMu.Lock()
		stop := m.admit
		m.admit = nil
		m.dropMu.Unlock()
		if stop != nil {
			stop()
		}
		var wg sync.WaitGroup
		for _, c := range slices.Clip(m.peers) {
			if c != nil {
				wg.Go(c.close)
			}
		}
		for i := range m.extra {
			if c := m.extra[i].Load(); c != nil {
				wg.Go(c.close)
			}
		}
		wg.Wait()
	})
	return nil
}

// Drop gives up on the slave of the given rank, a node the caller counts
// as lost: it is excluded (see Exclude) and its connection is closed in the
// background (gracefully: a slave that is still alive gets the goodbye).
// Its later messages are discarded; Send and Recv on it return ErrClosed.
// Drop is idempotent, and may follow Exclude.
func (m *Master) Drop(rank int) error {
	if err := m.Exclude(rank); err != nil {
		return err
	}
	c, _ := m.peer(rank)
	c.shut()
	go c.close()
	return nil
}

// Exclude stops counting on the slave of the given rank without closing
// its connection, so that the caller can still receive (and refuse) what
// a node it declared lost sends late, and tell it to leave: Broadcast and
// Gather skip it, and broadcasts use the star from now on (a relay tree or
// chain through a lost node would cut its children off; with
// Config.HealRelay the last relayed broadcast is sent again to the nodes
// below it). Exclude is idempotent.
func (m *Master) Exclude(rank int) error {
	if _, err := m.peer(rank); err != nil {
		return err
	}
	m.dropMu.Lock()
	already := m.dropped[rank]
	m.dropped[rank] = true
	m.dropMu.Unlock()
	m.relay.mu.Lock()
	if m.relay.on {
		m.relay.on = false
		m.relay.err = fmt.Errorf("node %d was dropped: broadcasts use the star", rank)
	}
	last := m.relay.last
	m.relay.last = relayed{}
	m.relay.mu.Unlock()
	if !already {
		m.resendAround(rank, last)
	}
	return nil
}

// isDropped reports whether Exclude (or Drop) was called for rank.
func (m *Master) isDropped(rank int) bool {
	m.dropMu.Lock()
	defer m.dropMu.Unlock()
	return m.dropped[rank]
}

// Silent returns how long the master has received nothing from slave
// rank, not even a heartbeat (a slave sends one whenever it has sent
// nothing for Config.HeartbeatInterval, however busy its program): a
// stopped or starved process is silent, a busy one is not. It is 0 for a
// rank without a connection.
func (m *Master) Silent(rank int) time.Duration {
	c, err := m.peer(rank)
	if err != nil || c == nil {
		return 0
	}
	return time.Duration(c.now() - c.heard.Load())
}

// PeerAddr is the remote address of slave rank's connection, as this
// master sees it ("" for an unknown rank).
func (m *Master) PeerAddr(rank int) string {
	if rank <= 0 || rank >= len(m.peers) || m.peers[rank] == nil {
		return ""
	}
	return m.peers[rank].addr
}
