package transport

// One port for every service of a job. A master may run several services
// that each authenticate their connections with this package's handshake
// under a job id of their own (the job, its page server, its input
// stream). A Router shares one listener among them: it reads, without
// consuming it, the job id of the hello each connection starts with, and
// hands the connection to the service listening for that id. The job id
// is not trusted: it only picks the service, whose own handshake then
// checks it, the rank, the size and the token as on a listener of its own.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// helloPeekLen is the part of a slave's hello that names its job: the
// prefix (magic, version, type, length), the rank, the size and the job id.
const helloPeekLen = hsPrefixLen + 4 + 4 + 8

// Router shares a listener among the services of a job, by the job id of
// the handshake's hello. It is safe for concurrent use.
//
// A connection goes to the service listening for the job id its hello
// names; any other connection whose first bytes arrive (another job's,
// garbage) goes to the default service, the first one to listen, whose
// handshake refuses it with its own error; a connection that sends nothing
// within the handshake timeout, or whose service is gone, is closed and
// reported to Config.Notice as "refused a connection from ADDR: reason".
type Router struct {
	ln      net.Listener
	timeout time.Duration
	notice  func(string)
	acc     *acceptor
	stop    chan struct{}
	done    chan struct{} // the accept loop returned (or never ran)
	begun   sync.Once     // the accept loop started, at the first Listen

	mu sync.Mutex
	// mu protects the following fields.
	routes  map[uint64]*routeListener
	def     *routeListener // the default service, while it listens
	sealed  bool
	closing bool
}

// NewRouter shares ln among the services of the job that cfg configures
// (its timeouts and Notice apply); it starts accepting at the first Listen. The Router owns ln from
// then on: it closes it at Close, or once sealed (Seal) and every
// service's listener is closed.
func NewRouter(ln net.Listener, cfg Config) (*Router, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	r := &Router{ln: ln, timeout: handshakeTimeout(&cfg), notice: cfg.Notice,
		stop: make(chan struct{}), done: make(chan struct{}), routes: map[uint64]*routeListener{}}
	r.acc = newAcceptor(ln, pendingBase+cfg.Size+cfg.MaxJoin, r.route)
	return r, nil
}

// begin starts the accept loop, once: at the first Listen, so that a
// connection that comes before any service listens (a slave dialling the
// port while its master is still setting up) waits in the listener's
// backlog instead of being refused for want of a service.
func (r *Router) begin() {
	r.begun.Do(func() {
		go func() {
			defer close(r.done)
			if err := r.acc.run(r.stop); err != nil {
				r.refused(fmt.Sprintf("accepting on %v stopped: %v", r.ln.Addr(), err))
			}
		}()
	})
}

// Listen returns the listener of the service whose handshakes use jobID.
// The first service to listen is the default one. The listener's Close
// ends the service's share of the port; its Addr is the shared listener's.
func (r *Router) Listen(jobID uint64) (net.Listener, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing || r.sealed {
		return nil, fmt.Errorf("%w: listen on a closed or sealed router", ErrConfig)
	}
	if r.routes[jobID] != nil {
		return nil, fmt.Errorf("%w: job id %#x listens twice", ErrConfig, jobID)
	}
	l := &routeListener{r: r, id: jobID, conns: make(chan net.Conn), closed: make(chan struct{}),
		dlChanged: make(chan struct{})}
	r.routes[jobID] = l
	if len(r.routes) == 1 {
		r.def = l
	}
	r.begin()
	return l, nil
}

// Seal says that no service will listen any more: the Router closes the
// shared listener once every service's listener is closed.
func (r *Router) Seal() {
	r.mu.Lock()
	r.sealed = true
	last := len(r.routes) == 0
	r.mu.Unlock()
	if last {
		_ = r.Close()
	}
}

// Addr is the shared listener's address.
func (r *Router) Addr() net.Addr { return r.ln.Addr() }

// Close closes the shared listener and every service's listener, and waits
// for the connections being routed. It is idempotent.
func (r *Router) Close() error {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		<-r.done
		return nil
	}
	r.closing = true
	routes := r.routes
	r.routes, r.def = map[uint64]*routeListener{}, nil
	r.mu.Unlock()
	close(r.stop)
	err := r.ln.Close()
	for _, l := range routes {
		l.closeOnce() // frees a route() waiting to hand a connection over
	}
	r.begun.Do(func() { close(r.done) }) // no service ever listened
	<-r.done
	r.acc.shutdown()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// route finds the service of one accepted connection and hands it over.
func (r *Router) route(p *pending) {
	nc := p.Conn
	addr := nc.RemoteAddr().String()
	var hello [helloPeekLen]byte
	_ = nc.SetReadDeadline(time.Now().Add(r.timeout))
	nc, n, err := peekFull(nc, hello[:])
	if !r.acc.done(p) {
		nc.Close() // dropped: too many connections in handshake at once
		r.refused(fmt.Sprintf("refused a connection from %s: dropped: too many connections in handshake at once", addr))
		return
	}
	if n == 0 {
		nc.Close()
		if errors.Is(err, io.EOF) {
			err = errors.New("closed before its handshake")
		} else if isTimeout(err) {
			err = fmt.Errorf("sent nothing in %v", r.timeout)
		}
		r.refused(fmt.Sprintf("refused a connection from %s: %v", addr, err))
		return
	}
	_ = nc.SetReadDeadline(time.Time{})
	l := r.lookup(hello[:n])
	if l == nil {
		nc.Close()
		what := "not a handshake"
		if id, ok := helloJob(hello[:n]); ok {
			what = fmt.Sprintf("a hello for job id %#x", id)
		}
		r.refused(fmt.Sprintf("refused a connection from %s: no service of this job takes it now (%s)", addr, what))
		return
	}
	t := time.NewTimer(r.timeout)
	defer t.Stop()
	select {
	case l.conns <- nc:
	case <-l.closed:
		nc.Close()
		r.refused(fmt.Sprintf("refused a connection from %s: its service closed", addr))
	case <-t.C:
		nc.Close()
		r.refused(fmt.Sprintf("refused a connection from %s: its service did not take it in %v", addr, r.timeout))
	}
}

// lookup returns the service for a connection whose first bytes are b:
// the one listening for the job id of a whole hello, else the default one.
func (r *Router) lookup(b []byte) *routeListener {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := helloJob(b); ok {
		if l := r.routes[id]; l != nil {
			return l
		}
	}
	return r.def
}

// helloJob returns the job id of a connection whose first bytes are b, if
// they are the start of a hello.
func helloJob(b []byte) (uint64, bool) {
	if len(b) < helloPeekLen || string(b[:len(hsMagic)]) != hsMagic || b[len(hsMagic)+1] != hsHello {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[hsPrefixLen+8:]), true
}

func (r *Router) refused(msg string) {
	if r.notice != nil && !closed(r.stop) {
		r.notice(msg)
	}
}

// remove ends l's share of the port.
func (r *Router) remove(l *routeListener) {
	r.mu.Lock()
	if r.routes[l.id] == l {
		delete(r.routes, l.id)
	}
	if r.def == l {
		r.def = nil
	}
	last := r.sealed && len(r.routes) == 0 && !r.closing
	r.mu.Unlock()
	if last {
		go r.Close()
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// routeListener is one service's listener on a Router. It is safe for
// concurrent use.
type routeListener struct {
	r      *Router
	id     uint64
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once

	mu sync.Mutex
	// mu protects the following fields.
	deadline  time.Time
	dlChanged chan struct{} // closed and replaced when the deadline changes
}

// Accept returns the next connection routed to the service. It fails with
// net.ErrClosed once the listener is closed, and with a timeout error
// (os.ErrDeadlineExceeded) past the deadline.
func (l *routeListener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		dl, changed := l.deadline, l.dlChanged
		l.mu.Unlock()
		var expire <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return nil, errDeadline
			}
			t := time.NewTimer(d)
			defer t.Stop()
			expire = t.C
		}
		select {
		case nc := <-l.conns:
			return nc, nil
		case <-l.closed:
			return nil, net.ErrClosed
		case <-expire:
			return nil, errDeadline
		case <-changed:
		}
	}
}

// SetDeadline sets the deadline of Accept (the zero time: none), as
// *net.TCPListener's does; NewMaster uses it.
func (l *routeListener) SetDeadline(t time.Time) error {
	l.mu.Lock()
	l.deadline = t
	close(l.dlChanged)
	l.dlChanged = make(chan struct{})
	l.mu.Unlock()
	return nil
}

// Close ends the service's share of the port. It is idempotent.
func (l *routeListener) Close() error {
	l.closeOnce()
	l.r.remove(l)
	return nil
}

func (l *routeListener) closeOnce() { l.once.Do(func() { close(l.closed) }) }

// Addr is the shared listener's address.
func (l *routeListener) Addr() net.Addr { return l.r.ln.Addr() }

// errDeadline is Accept's error past its deadline: a net.Error whose
// Timeout is true.
var errDeadline error = &net.OpError{Op: "accept", Net: "route", Err: deadlineError{}}

type deadlineError struct{}

func (deadlineError) Error() string   { return "i/o timeout" }
func (deadlineError) Timeout() bool   { return true }
func (deadlineError) Temporary() bool { return true }

// readFull reads the first len(b) bytes of nc into b and returns a
// connection that reads them again first (peekFull where peeking is not
// available).
func readFull(nc net.Conn, b []byte) (net.Conn, int, error) {
	n, err := io.ReadFull(nc, b)
	if n == 0 {
		return nc, 0, err
	}
	return &replayConn{Conn: nc, pre: append([]byte(nil), b[:n]...)}, n, err
}

// replayConn is a connection whose first bytes were read already: Read
// returns them first.
type replayConn struct {
	net.Conn
	pre []byte
}

func (c *replayConn) Read(b []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(b, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}
