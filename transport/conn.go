package transport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Message is one message of the runtime's protocol, a plain value. Kind
// values below MinKind are reserved by the transport. A received Message's Payload is a
// fresh allocation owned by the caller (who may give it back for reuse
// with Release); a sent one is not retained after Send returns.
type Message struct {
	Kind    uint8
	Seq     uint64
	Payload []byte
}

// conn is one authenticated connection between the master and a slave. Its
// reader goroutine verifies frames and queues messages; its heartbeat
// goroutine keeps the peer informed that this side is alive. It is safe for
// concurrent use; whole messages are written under wmu.
type conn struct {
	nc     net.Conn
	rank   int    // remote rank
	addr   string // remote address
	cfg    *Config
	notify chan struct{} // cap 1, signalled on every push and failure; may be nil
	epoch  time.Time

	// wmu protects fw (one whole message at a time). Lock order: wmu before mu.
	wmu sync.Mutex
	fw  frameWriter

	lastSend atomic.Int64 // nanoseconds since epoch of the last write
	heard    atomic.Int64 // nanoseconds since epoch of the last frame read, heartbeats included
	sending  atomic.Bool  // a caller's message is being written (under wmu)
	wclosed  bool         // the goodbye is sent and the write side shut; protected by wmu

	// rmu is held by whoever reads the socket: the reader goroutine, or a
	// receiver reading it directly (see recv). It protects fr, dr and fwd.
	rmu sync.Mutex
	fr  *frameReader
	dr  *deadlineReader
	// receivers counts the callers in recv; lastWant is when (nanoseconds
	// since epoch) one last left it. While there are receivers, or one
	// left recently, the reader goroutine leaves the socket to them (see
	// readLoop). kick wakes the reader goroutine to read again at once.
	receivers atomic.Int32
	lastWant  atomic.Int64
	kick      chan struct{} // cap 1
	shutting  atomic.Bool   // shut began: a receiver waiting for data gives up

	// mu protects the following fields.
	mu      sync.Mutex
	queue   []Message
	head    int
	cause   error // why the connection failed; nil while it is alive
	closing bool  // Close was called
	peeking bool  // a receiver waits for data in readDirect

	free [][]byte // payloads given back by release, for the reader to reuse; protected by mu

	ready chan struct{} // cap 1, signalled when queue or cause changes
	dead  chan struct{} // closed when cause is set
	stop  chan struct{} // closed when Close begins (the connection may drain a while)

	shutOnce  sync.Once
	closeOnce sync.Once
	wg        sync.WaitGroup

	// hooks handles the transport's own messages (relay setup and relayed
	// broadcasts); nil on connections that carry none. Fixed at creation.
	hooks *connHooks
	fwd   []*conn // children a relayed message is being forwarded to; protected by rmu
}

// newConn wraps an authenticated connection and starts its goroutines.
// sendKey and recvKey are this side's directions of the session keys.
func newConn(nc net.Conn, rank int, cfg *Config, sendKey, recvKey []byte, notify chan struct{}) (*conn, error) {
	return newConnHooks(nc, rank, cfg, sendKey, recvKey, notify, nil)
}

// newConnHooks is newConn for a connection whose internal messages go to
// hooks.
func newConnHooks(nc net.Conn, rank int, cfg *Config, sendKey, recvKey []byte, notify chan struct{}, hooks *connHooks) (*conn, error) {
	wm, err := newMacer(sendKey)
	if err != nil {
		return nil, err
	}
	rm, err := newMacer(recvKey)
	if err != nil {
		return nil, err
	}
	if err := nc.SetDeadline(time.Time{}); err != nil {
		return nil, err
	}
	c := &conn{
		nc:     nc,
		rank:   rank,
		addr:   nc.RemoteAddr().String(),
		cfg:    cfg,
		notify: notify,
		epoch:  time.Now(),
		fw:     frameWriter{w: nc, timeout: cfg.IOTimeout, mac: wm, raw: newRawIO(nc)},
		dr:     &deadlineReader{c: nc, timeout: cfg.PeerTimeout, raw: newRawIO(nc), epoch: time.Now()},
		kick:   make(chan struct{}, 1),
		ready:  make(chan struct{}, 1),
		dead:   make(chan struct{}),
		stop:   make(chan struct{}),
		hooks:  hooks,
	}
	c.fr = newFrameReader(c.dr, rm, cfg.MaxFrame, cfg.KindLimits)
	if hooks != nil && hooks.forward != nil {
		c.fr.onChunk = func(h header, chunk []byte) { hooks.forward(c, h, chunk) }
	}
	c.fr.take = c.takeFree
	c.wg.Add(2)
	go c.readLoop()
	go c.heartbeatLoop()
	return c, nil
}

func signal(ch chan struct{}) {
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

// directIdle is how long after a receiver left recv the reader goroutine
// stays off the socket. While a receiver waits in recv, or receivers keep
// coming back within directIdle (a loop of regions), each reads its
// messages itself: the data wakes the goroutine that needs it, instead of
// the reader goroutine, which would then have to wake it (two wake-ups and
// a thread hand-off per message). A receiver waiting for data sees
// heartbeats, failures and relayed frames as the reader goroutine would.
// With no receiver for directIdle the reader goroutine reads again, so
// that a failure is seen within it, and Gather's messages at once (Gather
// wakes it).
const directIdle = 20 * time.Millisecond

// readLoop reads messages until the connection fails, except while
// receivers read them directly (see directIdle).
func (c *conn) readLoop() {
	defer c.wg.Done()
	var t *time.Timer
	for {
		if c.direct() {
			if t == nil {
				t = time.NewTimer(directIdle)
			} else {
				t.Reset(directIdle)
			}
			select {
			case <-c.dead:
				t.Stop()
				return
			case <-c.kick:
			case <-t.C:
			}
			continue
		}
		c.rmu.Lock()
		ok := !c.isDead() && c.readOne()
		c.rmu.Unlock()
		if !ok {
			if t != nil {
				t.Stop()
			}
			return
		}
		if c.receivers.Load() > 0 {
			// A receiver that found the socket taken waits for a
			// message; this one may not have been for it (a heartbeat):
			// it takes the socket over.
			signal(c.ready)
		}
	}
}

// direct reports whether a receiver is in recv or left it within
// directIdle.
func (c *conn) direct() bool {
	if c.shutting.Load() {
		return false
	}
	if c.receivers.Load() > 0 {
		return true
	}
	last := c.lastWant.Load()
	return last != 0 && time.Duration(c.now()-last) < directIdle
}

func (c *conn) now() int64 { return int64(time.Since(c.epoch)) }

// wakeReader makes the reader goroutine read the socket again, for a
// caller that does not read it directly (Gather, WaitClosed, Close).
func (c *conn) wakeReader() {
	c.lastWant.Store(0)
	signal(c.kick)
}

// readOne reads one message and handles it: a caller's message is queued
// (and ready and notify signalled), a heartbeat is skipped, the
// transport's own messages go to the hooks. It reports false once the
// connection has failed. c.rmu must be held.
func (c *conn) readOne() bool {
	kind, seq, p, err := c.fr.readMessage()
	if err != nil {
		c.abortForward()
		c.fail(c.readCause(err))
		return false
	}
	c.heard.Store(c.now())
	switch kind {
	case kindHeartbeat:
		return true
	case kindBye:
		c.abortForward()
		c.fail(ErrPeerClosed)
		return false
	}
	if kind == kindAnnounce && (c.hooks == nil || !c.hooks.announcements) {
		c.fail(fmt.Errorf("%w: unexpected broadcast announcement", ErrCorruptFrame))
		return false
	}
	if internalKind(kind) && kind != kindAnnounce {
		if c.hooks == nil || c.hooks.internal == nil {
			c.fail(fmt.Errorf("%w: unexpected transport message kind %d", ErrCorruptFrame, kind))
			return false
		}
		if err := c.hooks.internal(c, kind, seq, p); err != nil {
			c.fail(err)
			return false
		}
		return true
	}
	c.mu.Lock()
	if c.closing { // draining after Close: nobody will receive it
		c.mu.Unlock()
		return true
	}
	if c.head >= 64 && 2*c.head >= len(c.queue) {
		n := copy(c.queue, c.queue[c.head:])
		clear(c.queue[n:])
		c.queue, c.head = c.queue[:n], 0
	}
	c.queue = append(c.queue, Message{Kind: kind, Seq: seq, Payload: p})
	c.mu.Unlock()
	signal(c.ready)
	signal(c.notify)
	return true
}

// readDirect is a receiver's read of the socket, under c.rmu: it waits
// until data arrives (or PeerTimeout passes, which fails the connection
// as the reader goroutine's read would), then reads and handles one
// message with readOne. A Close while it waits interrupts it before any
// byte is consumed (ErrClosed), so that the reader goroutine can drain
// the connection.
func (c *conn) readDirect() error {
	if c.fr.buffered() == 0 {
		c.mu.Lock()
		if c.closing {
			c.mu.Unlock()
			return ErrClosed
		}
		c.peeking = true
		err := c.dr.arm()
		c.mu.Unlock()
		if err == nil {
			c.dr.hold = true // the peek keeps that deadline, which shut may cut short
			err = c.fr.peek()
			c.dr.hold = false
		}
		c.mu.Lock()
		c.peeking = false
		closing := c.closing
		c.mu.Unlock()
		if err != nil {
			if closing {
				return ErrClosed
			}
			c.abortForward()
			c.fail(c.readCause(err))
			return nil // recv reports the failure
		}
	}
	c.readOne()
	return nil
}

func (c *conn) readCause(err error) error {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	switch {
	case closing:
		return ErrClosed
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%w: nothing received for %v", ErrPeerTimeout, c.cfg.PeerTimeout)
	}
	return netCause(err)
}

func (c *conn) writeCause(err error) error {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	switch {
	case closing:
		return ErrClosed
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%w: a write blocked for %v", ErrPeerTimeout, c.cfg.IOTimeout)
	}
	return netCause(err)
}

// heartbeatLoop sends a heartbeat whenever nothing was sent for
// HeartbeatInterval. It skips the beat if a message is being written (the
// peer is receiving bytes then).
func (c *conn) heartbeatLoop() {
	defer c.wg.Done()
	interval := c.cfg.HeartbeatInterval
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-c.dead:
			return
		case <-t.C:
		}
		idle := time.Since(c.epoch) - time.Duration(c.lastSend.Load())
		if idle >= interval {
			if c.wmu.TryLock() {
				if c.wclosed { // Close sent the goodbye: nothing may follow it
					c.wmu.Unlock()
					return
				}
				err := c.fw.writeMessage(kindHeartbeat, 0, nil)
				c.lastSend.Store(int64(time.Since(c.epoch)))
				c.wmu.Unlock()
				if err != nil {
					c.fail(c.writeCause(err))
					return
				}
			}
			idle = 0
		}
		t.Reset(interval - idle)
	}
}

// fail records the first cause, closes the socket (unblocking the reader
// and writers) and wakes every waiter.
func (c *conn) fail(cause error) {
	c.mu.Lock()
	if c.cause != nil {
		c.mu.Unlock()
		return
	}
	c.cause = cause
	close(c.dead)
	c.mu.Unlock()
	c.nc.Close()
	signal(c.ready)
	signal(c.notify)
	if c.hooks != nil && c.hooks.failed != nil {
		c.hooks.failed(c, cause)
	}
}

// opErr returns the connection's failure as seen by op. c.mu must be held.
func (c *conn) opErr(op string) error {
	if c.closing || c.cause == ErrClosed {
		return ErrClosed
	}
	return &NodeError{Rank: c.rank, Addr: c.addr, Op: op, Err: c.cause}
}

func (c *conn) nodeErr(op string, err error) error {
	return &NodeError{Rank: c.rank, Addr: c.addr, Op: op, Err: err}
}

// send writes msg; it returns once the whole message is in the kernel.
func (c *conn) send(msg Message) error {
	if err := c.checkSend(msg.Kind, len(msg.Payload)); err != nil {
		return err
	}
	return c.sendRaw(msg.Kind, msg.Seq, msg.Payload)
}

// checkSend refuses, before anything is written, a message of a kind
// reserved for the transport or larger than the limits allow.
func (c *conn) checkSend(kind uint8, n int) error {
	if kind < MinKind {
		return c.nodeErr("send", fmt.Errorf("%w: kind %d", ErrReservedKind, kind))
	}
	if n > c.cfg.MaxFrame {
		return c.nodeErr("send", fmt.Errorf("%w: message of %d bytes, limit %d", ErrFrameTooLarge, n, c.cfg.MaxFrame))
	}
	if lim, ok := c.cfg.KindLimits[kind]; ok && n > lim {
		return c.nodeErr("send", fmt.Errorf("%w: message of kind %d of %d bytes, limit %d", ErrFrameTooLarge, kind, n, lim))
	}
	return nil
}

// tryRecv pops a message if one is queued. Queued messages are delivered
// before the failure that followed them, but not after a local Close.
func (c *conn) tryRecv() (msg Message, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return Message{}, false, ErrClosed
	}
	if c.head < len(c.queue) {
		msg = c.queue[c.head]
		c.queue[c.head] = Message{}
		c.head++
		if c.head == len(c.queue) {
			c.queue, c.head = c.queue[:0], 0
		} else {
			signal(c.ready) // for a concurrent receiver
		}
		return msg, true, nil
	}
	if c.cause != nil {
		return Message{}, false, c.opErr("recv")
	}
	return Message{}, false, nil
}

// recv blocks until a message is queued or the connection failed. While
// no other goroutine reads the socket it reads it itself (see directIdle).
func (c *conn) recv() (Message, error) {
	c.receivers.Add(1)
	defer func() {
		c.lastWant.Store(c.now())
		c.receivers.Add(-1)
	}()
	for {
		msg, ok, err := c.tryRecv()
		if ok || err != nil {
			return msg, err
		}
		if c.rmu.TryLock() {
			if c.queued() { // pushed by the reader goroutine meanwhile
				c.rmu.Unlock()
				continue
			}
			err := c.readDirect()
			c.rmu.Unlock()
			if err != nil {
				return Message{}, err
			}
			continue
		}
		select {
		case <-c.ready:
		case <-c.dead:
		case <-c.stop:
		}
	}
}

// queued reports whether a message is queued.
func (c *conn) queued() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head < len(c.queue)
}

// maxLinger bounds how long Close drains a connection; the linger is
// min(PeerTimeout, maxLinger).
const maxLinger = 2 * time.Second

func (c *conn) linger() time.Duration { return min(c.cfg.PeerTimeout, maxLinger) }

// close ends the connection gracefully, so that the peer loses nothing this
// side sent: it waits for a relayed message being forwarded on it (or a
// heartbeat) to be written, sends a goodbye, shuts the write side (FIN), and
// keeps reading, discarding the peer's messages, until the peer ends its
// side (its goodbye or EOF) or the linger has passed; only then does it
// close the socket. Closing a socket with unread data makes the kernel
// reset it, and a reset peer drops what it had not read yet. A caller's
// Send in progress is not waited for: it is cut short and returns
// ErrClosed. Blocked and later calls return ErrClosed at once; close
// returns after the drain and the goroutines' end.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.shut()
		c.mu.Lock()
		alive := c.cause == nil
		c.mu.Unlock()
		if alive {
			if c.lockWrite() {
				deadline := time.Now().Add(c.linger())
				c.wclosed = true
				err := c.fw.setTimeout(max(min(c.cfg.IOTimeout, time.Until(deadline)), time.Millisecond))
				if err == nil {
					err = c.fw.writeMessage(kindBye, 0, nil)
				}
				if cw, ok := c.nc.(interface{ CloseWrite() error }); ok && err == nil {
					err = cw.CloseWrite()
				}
				c.wmu.Unlock()
				if err == nil {
					t := time.NewTimer(time.Until(deadline))
					select {
					case <-c.dead: // the peer's goodbye or EOF: nothing is left unread
					case <-t.C:
					}
					t.Stop()
				}
			}
		}
		c.fail(ErrClosed)
		c.wg.Wait()
	})
}

// shut is the start of close: blocked and later calls return ErrClosed,
// and messages still arriving are discarded; the socket stays open.
func (c *conn) shut() {
	c.shutOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.shutting.Store(true)
		if c.peeking {
			// Interrupt a receiver waiting for data in readDirect, before
			// it consumed any; the reader goroutine, woken below, drains
			// the connection (its reads set their own deadlines).
			_ = c.nc.SetReadDeadline(time.Unix(1, 0))
			c.dr.armed.Store(0) // the next read sets its deadline again
		}
		c.mu.Unlock()
		c.wakeReader()
		close(c.stop)
	})
}

// lockWrite takes wmu for the goodbye. It waits for a relayed message being
// forwarded on this connection, or a heartbeat, as long as it progresses:
// it gives up once nothing was written for the linger (a relay parent that
// stalled), and at once if a caller's message is being written (Close cuts
// it short) or the connection failed.
func (c *conn) lockWrite() bool {
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		if c.wmu.TryLock() {
			if c.isDead() {
				c.wmu.Unlock()
				return false
			}
			return true
		}
		idle := time.Since(c.epoch) - time.Duration(c.lastSend.Load())
		if c.sending.Load() || c.isDead() || idle > c.linger() {
			return false
		}
		time.Sleep(wait)
	}
}

// connHooks routes a connection's internal messages.
type connHooks struct {
	announcements bool                                                  // kindAnnounce is queued (a slave's master connection)
	internal      func(c *conn, kind uint8, seq uint64, p []byte) error // setup messages and completed relayed payloads
	forward       func(c *conn, h header, chunk []byte)                 // each verified frame of a relayed payload
	failed        func(c *conn, cause error)                            // the connection failed
}

// sendRaw is send without the check of the caller's kind range.
func (c *conn) sendRaw(kind uint8, seq uint64, p []byte) error {
	return c.write(func(fw *frameWriter) error { return fw.writeMessage(kind, seq, p) })
}

// write runs one message's write under the connection's write lock,
// unless the connection is closing or has failed; a failed write fails
// the connection.
func (c *conn) write(w func(*frameWriter) error) error {
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
	err := w(&c.fw)
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

// Payload buffers given back with release are kept, at most maxFree of
// them and none over maxFreeLen bytes, for the reader's next messages.
const (
	maxFree    = 2
	maxFreeLen = 64 << 20
)

// release keeps p, a payload the caller no longer uses, for a later
// message.
func (c *conn) release(p []byte) {
	if cap(p) == 0 || cap(p) > maxFreeLen {
		return
	}
	c.mu.Lock()
	if len(c.free) < maxFree {
		c.free = append(c.free, p[:0])
	}
	c.mu.Unlock()
}

// takeFree returns a released buffer fit for a payload of total bytes
// (its capacity at least total, and not far beyond), or nil.
func (c *conn) takeFree(total uint64) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, b := range c.free {
		if n := uint64(cap(b)); n >= total && n <= max(2*total, 64<<10) {
			last := len(c.free) - 1
			c.free[i], c.free[last] = c.free[last], nil
			c.free = c.free[:last]
			return b
		}
	}
	return nil
}
