package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Slave is a slave's end of a job: one authenticated connection to the
// master. It is safe for concurrent use: Send may run concurrently with Recv
// and with other Sends (messages are never interleaved).
type Slave struct {
	mu    sync.Mutex // protects c while Dial sets it (the relay setup reads it)
	c     *conn
	relay *slaveRelay // nil without relayed broadcasts
}

// Dial connects to the master at addr as the given rank (1 ≤ rank < Size,
// or, for a node joining the running job, Size ≤ rank < Size+MaxJoin) and
// runs the handshake. It retries a refused connection (the master may
// still be starting) and a handshake the master cut short (it drops
// connections beyond its limit of handshakes in progress) until ctx ends; without a deadline in ctx, it gives up
// after HandshakeTimeout. Errors are *NodeError naming the master (rank 0),
// or wrap ErrConfig.
func Dial(ctx context.Context, addr string, rank int, cfg Config) (*Slave, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	if rank < 1 || rank >= cfg.Size+cfg.MaxJoin {
		return nil, fmt.Errorf("%w: rank %d out of range [1, %d)", ErrConfig, rank, cfg.Size+cfg.MaxJoin)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.HandshakeTimeout)
		defer cancel()
	}
	nodeErr := func(op string, err error) error { return &NodeError{Rank: 0, Addr: addr, Op: op, Err: err} }

	nc, keys, err := dialHandshake(ctx, addr, 0, rank, &cfg)
	if err != nil {
		return nil, err
	}
	addr = nc.RemoteAddr().String()
	s := &Slave{}
	var hooks *connHooks
	if relayEnabled(&cfg) {
		if s.relay, err = newSlaveRelay(rank, &cfg, nc.LocalAddr()); err != nil {
			nc.Close()
			return nil, nodeErr("handshake", err)
		}
		hooks = s.relay.masterHooks(func() *conn { s.mu.Lock(); defer s.mu.Unlock(); return s.c })
	}
	c, err := newConnHooks(nc, 0, &cfg, keys.toMaster[:], keys.toSlave[:], nil, hooks)
	if err != nil {
		nc.Close()
		if s.relay != nil {
			s.relay.ln.Close()
		}
		return nil, nodeErr("handshake", err)
	}
	s.mu.Lock()
	s.c = c
	s.mu.Unlock()
	if s.relay != nil {
		if err := c.sendRaw(kindPort, 0, s.relay.port()); err != nil {
			s.relay.close(c)
			return nil, err
		}
	}
	return s, nil
}

// dialHandshake dials the master (peer 0), or a relay child, and runs the
// handshake as rank. A connection the peer closes before the handshake ends (it drops the oldest of too many
// connections in handshake, as under a flood) is retried until ctx ends.
// Errors are *NodeError naming the master.
func dialHandshake(ctx context.Context, addr string, peer, rank int, cfg *Config) (net.Conn, sessionKeys, error) {
	nodeErr := func(op string, err error) error { return &NodeError{Rank: peer, Addr: addr, Op: op, Err: err} }
	for backoff := 10 * time.Millisecond; ; backoff = min(2*backoff, 250*time.Millisecond) {
		nc, err := dialRetry(ctx, addr)
		if err != nil {
			return nil, sessionKeys{}, nodeErr("dial", err)
		}
		keys, err := handshakeCtx(ctx, nc, rank, cfg)
		if err == nil {
			return nc, keys, nil
		}
		nc.Close()
		if !errors.Is(err, ErrConnLost) || ctx.Err() != nil {
			return nil, sessionKeys{}, &NodeError{Rank: peer, Addr: nc.RemoteAddr().String(), Op: "handshake", Err: err}
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, sessionKeys{}, &NodeError{Rank: peer, Addr: nc.RemoteAddr().String(), Op: "handshake", Err: err}
		case <-t.C:
		}
	}
}

// handshakeCtx runs the slave's handshake on nc within ctx.
func handshakeCtx(ctx context.Context, nc net.Conn, rank int, cfg *Config) (sessionKeys, error) {
	deadline, _ := ctx.Deadline()
	if err := nc.SetDeadline(deadline); err != nil {
		return sessionKeys{}, err
	}
	// Cancelling ctx aborts the handshake.
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	keys, err := slaveHandshake(nc, rank, cfg)
	if !stop() && err == nil {
		err = ctx.Err() // cancelled as the handshake ended: the deadline may be broken
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("%w: handshake unfinished: %w", ErrPeerTimeout, context.Cause(ctx))
	}
	return keys, err
}

// dialRetry dials addr, retrying ECONNREFUSED with backoff until ctx ends.
func dialRetry(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	backoff := 10 * time.Millisecond
	for {
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return nc, nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, netCause(err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (gave up: %w)", netCause(err), ctx.Err())
		case <-t.C:
		}
		backoff = min(2*backoff, 250*time.Millisecond)
	}
}

// Send sends msg to the master. It returns once the message is written to
// the socket; msg.Payload may be reused then. Errors are *NodeError naming
// the master, or ErrClosed.
func (s *Slave) Send(msg Message) error { return s.c.send(msg) }

// Recv returns the next message from the master, blocking until one
// arrives, the connection fails (a *NodeError naming the master), or the
// Slave is closed (ErrClosed). Messages that arrived before a failure are
// returned first.
func (s *Slave) Recv() (Message, error) {
	msg, err := s.c.recv()
	if err != nil || msg.Kind != kindAnnounce {
		return msg, err
	}
	// A relayed broadcast: its payload comes from the relay parent.
	if len(msg.Payload) != announceLen || s.relay == nil || !relayKind(msg.Payload[9]) {
		return Message{}, &NodeError{Rank: 0, Addr: s.c.addr, Op: "recv", Err: fmt.Errorf("%w: bad broadcast announcement", ErrCorruptFrame)}
	}
	p, err := s.relay.wait(msg.Seq, msg.Payload[9])
	if err != nil {
		return Message{}, err
	}
	return Message{Kind: msg.Payload[0], Seq: binary.BigEndian.Uint64(msg.Payload[1:]), Payload: p}, nil
}

// TryRecv is Recv without waiting: ok is false when no message has
// arrived yet. A node that joins a running job uses it while it catches
// up (see Master.Admit); relayed broadcasts are not for it (it joins with
// the star), so an announcement is an error.
func (s *Slave) TryRecv() (msg Message, ok bool, err error) {
	msg, ok, err = s.c.tryRecv()
	if err == nil && ok && msg.Kind == kindAnnounce {
		return Message{}, false, &NodeError{Rank: 0, Addr: s.c.addr, Op: "recv", Err: fmt.Errorf("%w: a relayed broadcast before this node joined", ErrCorruptFrame)}
	}
	return msg, ok, err
}

// Release gives back p, the payload of a message received from Recv, as
// Master.Release does.
func (s *Slave) Release(p []byte) { s.c.release(p) }

// Close says goodbye to the master and on the relay links, closes them
// gracefully, and waits for the connections' goroutines. Blocked and later
// calls return ErrClosed at once. The links to relay children close first,
// each once the relayed message being forwarded on it is complete; then
// the links from relay parents and the connection to the master. Each
// connection drains until the peer ends its side (see the package doc,
// Lifecycle): a round trip, at most min(PeerTimeout, 2s) per step. Close is
// idempotent and always returns nil.
func (s *Slave) Close() error {
	if s.relay == nil {
		s.c.close()
		return nil
	}
	s.relay.close(s.c)
	return nil
}

// Dead returns a channel that is closed when the connection to the master
// has ended, for whatever reason (Err says which). It lets a slave notice a
// lost master while it is busy elsewhere.
func (s *Slave) Dead() <-chan struct{} { return s.c.dead }

// Err returns why the connection to the master ended, or nil while it is
// alive. An orderly goodbye from the master wraps ErrPeerClosed.
func (s *Slave) Err() error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if s.c.cause == nil {
		return nil
	}
	return s.c.opErr("recv")
}

// LocalAddr is the address of this end of the connection to the master:
// where the master's side sees the slave (distributed homes listen beside
// it for the other nodes).
func (s *Slave) LocalAddr() net.Addr { return s.c.nc.LocalAddr() }
