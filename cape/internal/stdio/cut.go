package stdio

import (
	"net"
	"sync"
	"time"
)

// CutListener is a listener that remembers the connections it accepted,
// so that Cut can reset them all: the master's at=stdin fault, which cuts
// the input's connections as a network cut (or ss -K) would. It is safe
// for concurrent use.
type CutListener struct {
	net.Listener
	mu    sync.Mutex // protects conns
	conns []net.Conn
}

// SetDeadline passes the transport's accept deadline on, so that its
// join stops accepting on the job's listener when it is done.
func (l *CutListener) SetDeadline(t time.Time) error {
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		return d.SetDeadline(t)
	}
	return nil
}

// Accept accepts a connection and remembers it.
func (l *CutListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

// Cut closes every accepted connection, a TCP one with a reset
// (SO_LINGER 0).
func (l *CutListener) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
}
