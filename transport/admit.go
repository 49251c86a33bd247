package transport

// Admission after start-up: nodes that join the running job.

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// Admit accepts, on ln, nodes that join the running job after NewMaster
// returned (Config.MaxJoin > 0). Each authenticates with the start-up
// handshake (the job id, the job's size at NewMaster and the token are
// checked the same way) under a rank from Size to Size+MaxJoin-1 that no
// node has taken: a joining node tries them in turn (a taken rank is
// rejected as a duplicate). An admitted node's connection is excluded
// (see Exclude) until Include: Send and Recv work on it, Broadcast and
// Gather skip it. joined is called with its rank, from the accepting
// goroutine, once its connection is set up.
//
// Admit returns at once; accepting goes on, with the limits of
// NewMaster's (each handshake in its own goroutine with its own
// deadline, at most 64+MaxJoin at once), until Close, which closes ln.
// Admit takes ln over: the caller must not accept on it any more.
func (m *Master) Admit(ln net.Listener, joined func(rank int)) error {
	if m.cfg.MaxJoin == 0 {
		return fmt.Errorf("%w: Admit with MaxJoin 0", ErrConfig)
	}
	stop := make(chan struct{})
	var a *acceptor
	a = newAcceptor(ln, pendingBase+m.cfg.MaxJoin, func(p *pending) {
		if rank, err := m.admitOne(p, a); err == nil {
			joined(rank)
		} else if m.cfg.Notice != nil && !closed(stop) {
			m.cfg.Notice(fmt.Sprintf("refused a joining node: %v", err))
		}
	})
	m.dropMu.Lock()
	if m.admit != nil || closed(m.closed) {
		m.dropMu.Unlock()
		return fmt.Errorf("%w: Admit called twice, or after Close", ErrConfig)
	}
	done := make(chan struct{})
	m.admit = func() {
		close(stop)
		ln.Close()
		<-done
		a.shutdown()
	}
	m.dropMu.Unlock()
	go func() {
		defer close(done)
		if err := a.run(stop); err != nil && m.cfg.Notice != nil {
			m.cfg.Notice(fmt.Sprintf("accepting joining nodes stopped: %v", err))
		}
	}()
	return nil
}

// admitOne authenticates one joining node and sets up its connection.
func (m *Master) admitOne(p *pending, a *acceptor) (int, error) {
	addr := p.RemoteAddr().String()
	fail := func(rank int, err error) (int, error) {
		a.done(p)
		p.Conn.Close()
		return rank, &NodeError{Rank: rank, Addr: addr, Op: "join", Err: err}
	}
	if err := p.SetDeadline(time.Now().Add(handshakeTimeout(&m.cfg))); err != nil {
		return fail(-1, err)
	}
	claim := func(rank int, addr string) (func(), error) {
		if !a.done(p) {
			return nil, fmt.Errorf("%w: dropped: too many connections in handshake at once", ErrConnLost)
		}
		return m.reserve(rank)
	}
	rank, keys, err := masterHandshake(p, &m.cfg, claim, addr)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("%w: handshake unfinished after %v", ErrPeerTimeout, handshakeTimeout(&m.cfg))
	}
	if err != nil {
		return fail(rank, err)
	}
	a.done(p)
	if err := p.SetDeadline(time.Time{}); err != nil {
		return fail(rank, err)
	}
	c, err := newConnHooks(p.Conn, rank, &m.cfg, keys.toSlave[:], keys.toMaster[:], m.notify, nil)
	if err != nil {
		return fail(rank, err)
	}
	m.dropMu.Lock()
	defer m.dropMu.Unlock()
	if closed(m.closed) {
		go c.close()
		return rank, &NodeError{Rank: rank, Addr: addr, Op: "join", Err: ErrClosed}
	}
	m.extra[rank-len(m.peers)].Store(c)
	return rank, nil
}

// reserve claims rank for a joining node that authenticated.
func (m *Master) reserve(rank int) (func(), error) {
	i := rank - len(m.peers)
	if i < 0 {
		return nil, fmt.Errorf("%w: rank %d belongs to a node of the job's start; a joining node takes a rank from %d on", ErrRejected, rank, len(m.peers))
	}
	m.dropMu.Lock()
	defer m.dropMu.Unlock()
	if m.reserved[i] {
		return nil, fmt.Errorf("%w: duplicate rank %d (already joined)", ErrRejected, rank)
	}
	m.reserved[i] = true
	return func() {
		m.dropMu.Lock()
		m.reserved[i] = false
		m.dropMu.Unlock()
	}, nil
}

// Include makes the joined node of the given rank part of the job's
// broadcasts and gathers from now on. Broadcasts use the star from then on
// (the relay links were built at start-up, without it). Include is
// idempotent.
func (m *Master) Include(rank int) error {
	if rank < len(m.peers) {
		return fmt.Errorf("%w: rank %d did not join after start-up", ErrConfig, rank)
	}
	if _, err := m.peer(rank); err != nil {
		return err
	}
	m.relay.mu.Lock()
	if m.relay.on {
		m.relay.on = false
		m.relay.err = fmt.Errorf("node %d joined: broadcasts use the star", rank)
	}
	m.relay.last = relayed{}
	m.relay.mu.Unlock()
	m.dropMu.Lock()
	m.dropped[rank] = false
	m.dropMu.Unlock()
	return nil
}

// eachJoined calls f for every node joined after start-up and included,
// in rank order.
func (m *Master) eachJoined(f func(rank int, c *conn)) {
	for i := range m.extra {
		c := m.extra[i].Load()
		if c == nil || m.isDropped(len(m.peers)+i) {
			continue
		}
		f(len(m.peers)+i, c)
	}
}
