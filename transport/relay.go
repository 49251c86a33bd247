package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"
)

// Relayed broadcasts. See doc.go, "Scalable broadcast".

// Transport-internal message kinds (below MinKind).
const (
	kindPort     = 3 // slave → master: u16 port of the slave's relay listener
	kindLinks    = 4 // master → slave: the children to dial: n × (u32 rank, u16 len, address)
	kindReady    = 5 // slave → master: links up (empty) or why not (text)
	kindAnnounce = 6 // master → slave: broadcast #Seq is next: u8 kind, u64 seq of the message, u8 scheme (kindChain or kindTree)
	kindChain    = 7 // relayed payload of broadcast #Seq, forwarded along the chain
	kindTree     = 8 // relayed payload of broadcast #Seq, forwarded down the binary tree
)

// announceLen is the length of a kindAnnounce payload.
const announceLen = 10

func internalKind(k uint8) bool { return k >= kindPort && k <= kindTree }
func relayKind(k uint8) bool    { return k == kindChain || k == kindTree }

// Broadcast schemes, for Config.Broadcast.
const (
	BroadcastAuto  = "auto"  // chosen per message by node count and size
	BroadcastStar  = "star"  // the master sends to every slave; no slave-to-slave links
	BroadcastTree  = "tree"  // binary tree over ranks, forwarded chunk by chunk
	BroadcastChain = "chain" // pipeline 0 → 1 → … → Size-1, forwarded chunk by chunk
)

// Thresholds of the automatic choice (see chooseScheme).
const (
	relayMinBytes = 64 << 10 // below this a message goes by star: latency dominates
	relayMinNodes = 3        // with fewer nodes every scheme is the star
)

// relaySetupTimeout bounds building the slave-to-slave links; if they are
// not up in time the job uses the star (and Master.RelayErr says why).
const relaySetupTimeout = 10 * time.Second

// connHooks routes a connection's internal messages.
type connHooks struct {
	announcements bool                                                  // kindAnnounce is queued (a slave's master connection)
	internal      func(c *conn, kind uint8, seq uint64, p []byte) error // setup messages and completed relayed payloads
	forward       func(c *conn, h header, chunk []byte)                 // each verified frame of a relayed payload
	failed        func(c *conn, cause error)                            // the connection failed
}

// children returns the ranks that rank forwards a relayed message of kind
// to: rank+1 on the chain; 2·rank+1 and 2·rank+2 in the binary tree.
func children(kind uint8, rank, size int) []int {
	var out []int
	switch kind {
	case kindChain:
		if rank+1 < size {
			out = append(out, rank+1)
		}
	case kindTree:
		for _, c := range []int{2*rank + 1, 2*rank + 2} {
			if c < size {
				out = append(out, c)
			}
		}
	}
	return out
}

// parent returns the rank that forwards a relayed message of kind to rank
// (0 is the master), or -1 if kind is not a relay scheme.
func parent(kind uint8, rank int) int {
	switch {
	case rank < 1:
		return -1
	case kind == kindChain:
		return rank - 1
	case kind == kindTree:
		return (rank - 1) / 2
	}
	return -1
}

// linkChildren returns the slaves that slave rank dials (its children in
// either scheme), and linkParents the slaves that dial it.
func linkChildren(rank, size int) []int {
	var out []int
	for _, k := range []uint8{kindChain, kindTree} {
		for _, c := range children(k, rank, size) {
			if c != rank && !contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

func linkParents(rank, size int) []int {
	var out []int
	for p := 1; p < rank; p++ {
		if contains(linkChildren(p, size), rank) {
			out = append(out, p)
		}
	}
	return out
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// chooseScheme picks the broadcast scheme of a payload of n bytes. The star
// costs the master (Size-1)·n bytes; the chain costs it n and adds about
// one chunk of delay per hop; the tree costs it 2n and adds two chunks per
// level. Small messages go by star (one hop); large ones by chain once the
// payload is long enough to fill the pipeline, by tree before that.
func chooseScheme(mode string, n, size int) uint8 {
	switch {
	case size < relayMinNodes || mode == BroadcastStar:
		return 0
	case mode == BroadcastChain:
		return kindChain
	case mode == BroadcastTree:
		return kindTree
	case n < relayMinBytes:
		return 0
	case n >= 2*(size-2)*chunkLen:
		return kindChain
	}
	return kindTree
}

func relayEnabled(cfg *Config) bool {
	return cfg.Size >= relayMinNodes && cfg.Broadcast != BroadcastStar
}

// ---- master side ----

// masterRelay is the master's relay state.
type masterRelay struct {
	setup chan relaySetupMsg // kindPort and kindReady messages during NewMaster

	mu sync.Mutex
	// mu protects the following fields.
	on   bool   // every slave reported its links up
	err  error  // why the relay is off, if it is
	next uint64 // index of the next relayed broadcast
}

type relaySetupMsg struct {
	rank int
	kind uint8
	p    []byte
}

func (m *Master) hooks() *connHooks {
	if !relayEnabled(&m.cfg) {
		return nil
	}
	return &connHooks{internal: func(c *conn, kind uint8, seq uint64, p []byte) error {
		if kind != kindPort && kind != kindReady {
			return fmt.Errorf("%w: unexpected transport message kind %d from a slave", ErrCorruptFrame, kind)
		}
		select {
		case m.relay.setup <- relaySetupMsg{rank: c.rank, kind: kind, p: p}:
		default: // a duplicate: ignore
		}
		return nil
	}}
}

// setupRelay tells each slave which children to dial and waits until every
// slave reports its links up. On failure the job keeps the star.
func (m *Master) setupRelay() {
	r := &m.relay
	err := m.buildLinks()
	r.mu.Lock()
	r.on, r.err = err == nil, err
	r.mu.Unlock()
}

func (m *Master) buildLinks() error {
	size := m.cfg.Size
	timeout := time.NewTimer(min(relaySetupTimeout, m.cfg.HandshakeTimeout))
	defer timeout.Stop()
	addrs := make([]string, size)
	readies := 0
	var errs []error
	for got := 0; got < size-1; {
		select {
		case s := <-m.relay.setup:
			switch s.kind {
			case kindPort:
				if len(s.p) != 2 || addrs[s.rank] != "" {
					return fmt.Errorf("slave %d: bad relay port message", s.rank)
				}
				host, _, _ := net.SplitHostPort(m.peers[s.rank].addr)
				addrs[s.rank] = net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(s.p))))
				got++
			case kindReady: // early failure report
				readies++
				if len(s.p) > 0 {
					errs = append(errs, fmt.Errorf("slave %d: %s", s.rank, s.p))
				}
			}
		case <-timeout.C:
			return fmt.Errorf("slaves' relay ports: %w", ErrJoinTimeout)
		}
	}
	for rank := 1; rank < size; rank++ {
		var p []byte
		for _, c := range linkChildren(rank, size) {
			p = binary.BigEndian.AppendUint32(p, uint32(c))
			p = binary.BigEndian.AppendUint16(p, uint16(len(addrs[c])))
			p = append(p, addrs[c]...)
		}
		if err := m.peers[rank].sendRaw(kindLinks, 0, p); err != nil {
			return err
		}
	}
	for readies < size-1 {
		select {
		case s := <-m.relay.setup:
			if s.kind == kindReady {
				readies++
				if len(s.p) > 0 {
					errs = append(errs, fmt.Errorf("slave %d: %s", s.rank, s.p))
				}
			}
		case <-timeout.C:
			return fmt.Errorf("slaves' relay links: %w", ErrJoinTimeout)
		}
	}
	return errors.Join(errs...)
}

// RelayErr reports why broadcasts use the star only: nil when the relay
// links are up or were not wanted (Size < 3 or Broadcast "star").
func (m *Master) RelayErr() error {
	m.relay.mu.Lock()
	defer m.relay.mu.Unlock()
	return m.relay.err
}

// broadcastRelayed announces broadcast #idx to every slave over its own
// connection (so that it keeps its place among the other messages) and
// sends the payload to the master's children in the scheme, which forward
// it chunk by chunk.
func (m *Master) broadcastRelayed(kind uint8, msg Message) error {
	r := &m.relay
	r.mu.Lock()
	idx := r.next
	r.next++
	r.mu.Unlock()
	var ann [announceLen]byte
	ann[0] = msg.Kind
	binary.BigEndian.PutUint64(ann[1:], msg.Seq)
	ann[9] = kind
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	note := func(err error) {
		if err != nil {
			once.Do(func() { first = err })
		}
	}
	for rank, c := range m.peers[1:] {
		wg.Go(func() {
			if err := c.sendRaw(kindAnnounce, idx, ann[:]); err != nil {
				note(err)
				return
			}
			if contains(children(kind, 0, len(m.peers)), rank+1) {
				note(c.sendRaw(kind, idx, msg.Payload))
			}
		})
	}
	wg.Wait()
	return first
}

// sendRaw is send without the check of the caller's kind range.
func (c *conn) sendRaw(kind uint8, seq uint64, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	if c.closing || c.cause != nil {
		err := c.opErr("send")
		c.mu.Unlock()
		return err
	}
	c.mu.Unlock()
	c.sending.Store(true)
	err := c.fw.writeMessage(kind, seq, p)
	c.sending.Store(false)
	c.lastSend.Store(int64(time.Since(c.epoch)))
	if err != nil {
		c.fail(c.writeCause(err))
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.opErr("send")
	}
	return nil
}

// ---- slave side ----

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
	closed  bool              // Close was called
	started func()            // tests: called as a relayed message starts being forwarded
}

func newSlaveRelay(rank int, cfg *Config, local net.Addr) (*slaveRelay, error) {
	ip := ""
	if a, ok := local.(*net.TCPAddr); ok {
		ip = a.IP.String()
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("relay listener: %w", err)
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
	} else {
		close(r.up)
	}
	if c := master(); c != nil {
		_ = c.sendRaw(kindReady, 0, msg)
	}
}

func (r *slaveRelay) link(p []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), min(relaySetupTimeout, r.cfg.HandshakeTimeout))
	defer cancel()
	parents := linkParents(r.rank, r.cfg.Size)
	accepted := make(chan error, 1)
	go func() { accepted <- r.acceptParents(ctx, parents) }()
	var errs []error
	for len(p) > 0 {
		if len(p) < 6 || len(p) < 6+int(binary.BigEndian.Uint16(p[4:])) {
			errs = append(errs, fmt.Errorf("%w: bad links message", ErrCorruptFrame))
			break
		}
		child := int(binary.BigEndian.Uint32(p))
		n := int(binary.BigEndian.Uint16(p[4:]))
		addr := string(p[6 : 6+n])
		p = p[6+n:]
		if err := r.dialChild(ctx, child, addr); err != nil {
			errs = append(errs, fmt.Errorf("link to slave %d at %s: %w", child, addr, err))
		}
	}
	if err := <-accepted; err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (r *slaveRelay) dialChild(ctx context.Context, child int, addr string) error {
	if !contains(linkChildren(r.rank, r.cfg.Size), child) {
		return fmt.Errorf("%w: slave %d is not a child of %d", ErrCorruptFrame, child, r.rank)
	}
	nc, err := dialRetry(ctx, addr)
	if err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	if err := nc.SetDeadline(deadline); err != nil {
		nc.Close()
		return err
	}
	// This side proves its rank to the child as a slave proves it to the
	// master; the child checks that it expects this parent.
	keys, err := slaveHandshake(nc, r.rank, r.cfg)
	if err != nil {
		nc.Close()
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

func (r *slaveRelay) acceptParents(ctx context.Context, parents []int) error {
	defer r.ln.Close()
	if len(parents) == 0 {
		return nil
	}
	stop := context.AfterFunc(ctx, func() { r.ln.Close() })
	defer stop()
	var mu sync.Mutex
	taken := map[int]bool{}
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
	for joined := 0; joined < len(parents); {
		nc, err := r.ln.Accept()
		if err != nil {
			return fmt.Errorf("accept relay parents %v: %w", parents, context.Cause(ctx))
		}
		if err := nc.SetDeadline(deadline); err != nil {
			nc.Close()
			continue
		}
		rank, keys, err := masterHandshake(nc, r.cfg, claim, nc.RemoteAddr().String())
		if err != nil {
			nc.Close()
			continue
		}
		c, err := newConnHooks(nc, rank, r.cfg, keys.toSlave[:], keys.toMaster[:], nil, r.linkHooks(true))
		if err != nil {
			nc.Close()
			continue
		}
		r.mu.Lock()
		r.parents = append(r.parents, c)
		r.mu.Unlock()
		joined++
	}
	return nil
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
// children got part of a message and cannot continue.
func (c *conn) abortForward() {
	if c.fwd == nil {
		return
	}
	for _, k := range c.fwd {
		k.fail(fmt.Errorf("%w: relay parent %d failed mid-message", ErrConnLost, c.rank))
		k.wmu.Unlock()
	}
	c.fwd = nil
}

func (c *conn) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

func (r *slaveRelay) deliver(idx uint64, p []byte) {
	r.mu.Lock()
	r.store[idx] = p
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
// it fails if this slave's parent in that scheme ended without sending it,
// if the master failed (a goodbye from the master does not count: the
// message may still be on its way through the other slaves), or on Close.
func (r *slaveRelay) wait(idx uint64, scheme uint8) ([]byte, error) {
	from := parent(scheme, r.rank)
	for {
		r.mu.Lock()
		p, ok := r.store[idx]
		if ok {
			delete(r.store, idx)
		}
		closed := r.closed
		failed, ended := r.ended[from]
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
