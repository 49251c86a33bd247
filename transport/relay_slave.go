package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// slaveRelay is a slave's relay state: its links to the slaves it forwards
// to and from, and the relayed payloads received but not yet delivered.
type slaveRelay struct {
	rank int
	cfg  *Config
	ln   net.Listener
	up   chan struct{} // closed when the links are up

	mu sync.Mutex
	// mu protects the following fields.
	kids    map[int]*conn     // children by rank, fixed once up is closed
	parents []*conn           // slaves that forward to this one
	store   map[uint64][]byte // relayed payloads by broadcast index
	ended   map[int]error     // why the connection from a parent (the master is 0) ended
	changed chan struct{}     // cap 1: store, ended or closed changed
	taken   uint64            // 1 + the index of the last broadcast delivered to the caller
	closed  bool              // Close was called
	started func()            // tests: called as a relayed message starts being forwarded
}

// testHookRelayListen, set by tests only, sees each relay listener as it
// opens.
var testHookRelayListen func(rank int, ln net.Listener)

func newSlaveRelay(rank int, cfg *Config, local net.Addr) (*slaveRelay, error) {
	ip := ""
	if a, ok := local.(*net.TCPAddr); ok {
		ip = a.IP.String()
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("relay listener: %w", err)
	}
	if testHookRelayListen != nil {
		testHookRelayListen(rank, ln)
	}
	return &slaveRelay{rank: rank, cfg: cfg, ln: ln, up: make(chan struct{}),
		kids: map[int]*conn{}, store: map[uint64][]byte{}, ended: map[int]error{}, changed: make(chan struct{}, 1)}, nil
}

func (r *slaveRelay) port() []byte {
	return binary.BigEndian.AppendUint16(nil, uint16(r.ln.Addr().(*net.TCPAddr).Port))
}

// masterHooks are the hooks of the slave's connection to the master.
func (r *slaveRelay) masterHooks(master func() *conn) *connHooks {
	return &connHooks{
		announcements: true,
		internal: func(c *conn, kind uint8, seq uint64, p []byte) error {
			switch kind {
			case kindLinks:
				go r.connect(master, p)
				return nil
			case kindChain, kindTree:
				r.deliver(seq, p)
				return nil
			}
			return fmt.Errorf("%w: unexpected transport message kind %d from the master", ErrCorruptFrame, kind)
		},
		forward: r.forward,
		failed:  r.parentFailed,
	}
}

func (r *slaveRelay) linkHooks(parent bool) *connHooks {
	h := &connHooks{internal: func(c *conn, kind uint8, seq uint64, p []byte) error {
		if !parent || !relayKind(kind) {
			return fmt.Errorf("%w: unexpected transport message kind %d on a relay link", ErrCorruptFrame, kind)
		}
		r.deliver(seq, p)
		return nil
	}}
	if parent {
		h.forward, h.failed = r.forward, r.parentFailed
	}
	return h
}

// connect dials the children named by a kindLinks message, accepts the
// parents, and reports to the master.
func (r *slaveRelay) connect(master func() *conn, p []byte) {
	err := r.link(p)
	var msg []byte
	if err != nil {
		msg = []byte(err.Error())
		if len(msg) > maxControlLen { // the master refuses longer ones
			msg = append(msg[:maxControlLen-3], "..."...)
		}
	} else {
		close(r.up)
	}
	if c := master(); c != nil {
		_ = c.sendRaw(kindReady, 0, msg)
	}
}

func (r *slaveRelay) link(p []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout(r.cfg))
	defer cancel()
	parents := linkParents(r.rank, r.cfg.Size)
	accepted := make(chan error, 1)
	go func() { accepted <- r.acceptParents(ctx, parents) }()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	note := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for len(p) > 0 {
		if len(p) < 6 || len(p) < 6+int(binary.BigEndian.Uint16(p[4:])) {
			note(fmt.Errorf("%w: bad links message", ErrCorruptFrame))
			break
		}
		child := int(binary.BigEndian.Uint32(p))
		n := int(binary.BigEndian.Uint16(p[4:]))
		addr := string(p[6 : 6+n])
		p = p[6+n:]
		wg.Go(func() {
			if err := r.dialChild(ctx, child, addr); err != nil {
				note(fmt.Errorf("link: %w", err))
			}
		})
	}
	wg.Wait()
	if err := <-accepted; err != nil {
		note(err)
	}
	return errors.Join(errs...)
}

func (r *slaveRelay) dialChild(ctx context.Context, child int, addr string) error {
	if !contains(linkChildren(r.rank, r.cfg.Size), child) {
		return fmt.Errorf("%w: slave %d is not a child of %d", ErrCorruptFrame, child, r.rank)
	}
	// This side proves its rank to the child as a slave proves it to the
	// master; the child checks that it expects this parent.
	nc, keys, err := dialHandshake(ctx, addr, child, r.rank, r.cfg)
	if err != nil {
		return err
	}
	c, err := newConnHooks(nc, child, r.cfg, keys.toMaster[:], keys.toSlave[:], nil, r.linkHooks(false))
	if err != nil {
		nc.Close()
		return err
	}
	r.mu.Lock()
	r.kids[child] = c
	closed := r.closed
	r.mu.Unlock()
	if closed {
		c.close()
		return ErrClosed
	}
	return nil
}

// acceptParents accepts the links from this slave's relay parents, each
// handshake in its own goroutine (see acceptor), until every parent is
// linked or ctx ends.
func (r *slaveRelay) acceptParents(ctx context.Context, parents []int) error {
	defer r.ln.Close()
	if len(parents) == 0 {
		return nil
	}
	var mu sync.Mutex
	taken := map[int]bool{}
	var last error // the last failed handshake
	claim := func(rank int, addr string) (func(), error) {
		mu.Lock()
		defer mu.Unlock()
		if !contains(parents, rank) || taken[rank] {
			return nil, fmt.Errorf("%w: slave %d is not an expected relay parent of %d", ErrRejected, rank, r.rank)
		}
		taken[rank] = true
		return func() {}, nil
	}
	deadline, _ := ctx.Deadline()
	joined := make(chan *conn)
	stop := make(chan struct{})
	var a *acceptor
	a = newAcceptor(r.ln, pendingBase+len(parents), func(p *pending) {
		c, err := r.acceptParent(p, a, claim, deadline)
		if err != nil {
			mu.Lock()
			last = err
			mu.Unlock()
			return
		}
		select {
		case joined <- c:
		case <-stop:
			c.close()
		}
	})
	acceptErr := make(chan error, 1)
	go func() { acceptErr <- a.run(stop) }()
	var failure error
	running := true // the accept loop
	for n := 0; n < len(parents) && failure == nil; {
		select {
		case c := <-joined:
			r.mu.Lock()
			r.parents = append(r.parents, c)
			r.mu.Unlock()
			n++
		case err := <-acceptErr:
			failure, running = fmt.Errorf("accept: %w", err), false
		case <-ctx.Done():
			failure = context.Cause(ctx)
		}
	}
	close(stop)
	r.ln.Close()
	a.shutdown()
	if running {
		<-acceptErr
	}
	if failure == nil {
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	var missing []int
	for _, p := range parents {
		if !taken[p] {
			missing = append(missing, p)
		}
	}
	if last != nil {
		failure = fmt.Errorf("%w (last failed handshake: %w)", failure, last)
	}
	return fmt.Errorf("links from relay parents %v not up: %w", missing, failure)
}

// acceptParent authenticates one connection to the relay listener.
func (r *slaveRelay) acceptParent(p *pending, a *acceptor, claim claimFunc, deadline time.Time) (*conn, error) {
	defer a.done(p)
	if err := p.SetDeadline(earliest(deadline, time.Now().Add(handshakeTimeout(r.cfg)))); err != nil {
		p.Conn.Close()
		return nil, err
	}
	addr := p.RemoteAddr().String()
	guarded := func(rank int, addr string) (func(), error) {
		if !a.done(p) {
			return nil, fmt.Errorf("%w: dropped: too many connections in handshake at once", ErrConnLost)
		}
		return claim(rank, addr)
	}
	rank, keys, err := masterHandshake(p, r.cfg, guarded, addr)
	if err != nil {
		p.Conn.Close()
		return nil, &NodeError{Rank: rank, Addr: addr, Op: "handshake", Err: err}
	}
	c, err := newConnHooks(p.Conn, rank, r.cfg, keys.toSlave[:], keys.toMaster[:], nil, r.linkHooks(true))
	if err != nil {
		p.Conn.Close()
		return nil, err
	}
	return c, nil
}

// forward sends one verified frame of a relayed message on to this slave's
// children in the message's scheme. It runs on the parent connection's
// reader goroutine; a child's write lock is held from the message's first
// frame to its last, so that no other frame comes between them.
func (r *slaveRelay) forward(from *conn, h header, chunk []byte) {
	first := from.fwd == nil
	if first {
		r.mu.Lock()
		for _, k := range children(h.kind, r.rank, r.cfg.Size) {
			if c := r.kids[k]; c != nil {
				from.fwd = append(from.fwd, c)
			}
		}
		started := r.started
		r.mu.Unlock()
		for _, c := range from.fwd {
			c.wmu.Lock()
		}
		if started != nil {
			started()
		}
		if from.fwd == nil {
			from.fwd = []*conn{} // no children: nothing to forward
		}
	}
	for _, c := range from.fwd {
		if c.isDead() || c.wclosed {
			continue
		}
		err := c.fw.writeFrame(h, chunk)
		c.lastSend.Store(int64(time.Since(c.epoch)))
		if err != nil {
			c.fail(c.writeCause(err))
		}
	}
	if h.flags&flagFin != 0 {
		for _, c := range from.fwd {
			c.wmu.Unlock()
		}
		from.fwd = nil
	}
}

// abortForward ends a forward cut short by the parent's failure: the

func (r *slaveRelay) deliver(idx uint64, p []byte) {
	r.mu.Lock()
	if idx >= r.taken { // else a copy sent again around a lost node, too late
		r.store[idx] = p
	}
	r.mu.Unlock()
	signal(r.changed)
}

// parentFailed records that the connection from a parent ended. Only the
// broadcasts that this parent had yet to forward fail: a parent that said
// goodbye forwarded everything it accepted before (the goodbye follows the
// frames on the link), and the others may still come from the other
// scheme's parent.
func (r *slaveRelay) parentFailed(c *conn, cause error) {
	r.mu.Lock()
	if _, ok := r.ended[c.rank]; !ok {
		if cause == ErrClosed {
			r.ended[c.rank] = ErrClosed
		} else {
			r.ended[c.rank] = &NodeError{Rank: c.rank, Addr: c.addr, Op: "relay", Err: cause}
		}
	}
	r.mu.Unlock()
	signal(r.changed)
}

// wait returns relayed broadcast #idx, sent by scheme, once it has arrived;
// it fails if this slave's parent in that scheme ended without sending it
// (with Config.HealRelay it waits on, for the master's copy),
// if the master failed (a goodbye from the master does not count: the
// message may still be on its way through the other slaves), or on Close.
func (r *slaveRelay) wait(idx uint64, scheme uint8) ([]byte, error) {
	from := parent(scheme, r.rank)
	for {
		r.mu.Lock()
		p, ok := r.store[idx]
		if ok {
			delete(r.store, idx)
			r.taken = max(r.taken, idx+1)
		}
		closed := r.closed
		failed, ended := r.ended[from]
		if ended && r.cfg.HealRelay && from != 0 {
			// The master sends it again once it gives up on the parent.
			failed, ended = nil, false
		}
		if lost := r.ended[0]; !ended && lost != nil && !errors.Is(lost, ErrPeerClosed) {
			failed, ended = lost, true // the master failed: the job is lost
		}
		r.mu.Unlock()
		switch {
		case ok:
			signal(r.changed) // for a concurrent waiter
			return p, nil
		case closed:
			signal(r.changed)
			return nil, ErrClosed
		case ended:
			signal(r.changed)
			return nil, failed
		}
		<-r.changed
	}
}

// shut makes waits return ErrClosed; the links keep forwarding until close.
func (r *slaveRelay) shut() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	signal(r.changed)
}

// close closes the links and the connection to the master. The links to
// the children go first, each once the relayed message being forwarded on
// it is complete (see conn.close): the parents keep sending meanwhile, so a
// child gets every message this slave had begun to forward. The parents
// (the master among them) go next.
func (r *slaveRelay) close(master *conn) {
	r.shut()
	r.mu.Lock()
	parents := append([]*conn{master}, r.parents...)
	var kids []*conn
	for _, c := range r.kids {
		kids = append(kids, c)
	}
	r.mu.Unlock()
	for _, c := range parents {
		if c != nil {
			c.shut() // blocked calls return now; the link keeps forwarding
		}
	}
	r.ln.Close()
	closeAll(kids)
	closeAll(parents)
}

func closeAll(conns []*conn) {
	var wg sync.WaitGroup
	for _, c := range conns {
		if c != nil {
			wg.Go(c.close)
		}
	}
	wg.Wait()
}
