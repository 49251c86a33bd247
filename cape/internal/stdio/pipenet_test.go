package stdio

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/cape-go/cape/transport"
)

// pipeNet is an in-memory twin of the transport for the input stream's
// tests: each slave's connection is a net.Pipe carrying frames (u8 kind,
// u64 seq, u32 length, the payload), and failures read as the transport's:
// a side's own Close makes its later calls ErrClosed; the peer of a side
// that closed sees ErrPeerClosed (every frame sent before was read: a
// net.Pipe write returns once read); a connection that ends otherwise (a
// cut) is ErrConnLost. Both are in a *transport.NodeError naming the peer.
type pipeNet struct {
	master map[int]*pipeEnd // by the slave's rank
	slave  map[int]*pipeEnd // the slave's end, by its rank
}

// link is one slave's connection: which of its ends closed in order.
type link struct {
	mu     sync.Mutex
	closed [2]bool // by side: 0 the master's end, 1 the slave's
}

// newPipeNet connects a master to the slaves 1..size-1. cutAfter[r], if
// set, cuts slave r's connection (both ends, no orderly close) once that
// many bytes arrived at the slave, as a network cut would.
func newPipeNet(size int, cutAfter map[int]int64) *pipeNet {
	n := &pipeNet{master: map[int]*pipeEnd{}, slave: map[int]*pipeEnd{}}
	for r := 1; r < size; r++ {
		mc, sc := net.Pipe()
		l := &link{}
		m := &pipeEnd{l: l, side: 0, c: mc, r: mc, peer: r}
		s := &pipeEnd{l: l, side: 1, c: sc, r: sc, peer: 0}
		if after := cutAfter[r]; after > 0 {
			s.r = &cutReader{r: sc, after: after, cut: func() { mc.Close(); sc.Close() }}
		}
		n.master[r], n.slave[r] = m, s
	}
	return n
}

// peers is the master's end (a Peers).
func (n *pipeNet) peers() *pipePeers { return &pipePeers{ends: n.master} }

// conns are the slaves' ends (Conns), by rank.
func (n *pipeNet) conns() map[int]Conn {
	c := map[int]Conn{}
	for r, e := range n.slave {
		c[r] = &pipeSlave{e}
	}
	return c
}

// pipeEnd is one end of a slave's connection.
type pipeEnd struct {
	l    *link
	side int
	c    net.Conn
	r    io.Reader // c, or a cutReader over it
	peer int       // the rank at the other end
	wmu  sync.Mutex
}

const pipeHeader = 13

// fail is the error of op that failed with err, as the transport names it.
func (e *pipeEnd) fail(op string, err error) error {
	e.l.mu.Lock()
	self, other := e.l.closed[e.side], e.l.closed[1-e.side]
	e.l.mu.Unlock()
	switch {
	case self:
		return transport.ErrClosed
	case other:
		return &transport.NodeError{Rank: e.peer, Addr: "pipe", Op: op, Err: transport.ErrPeerClosed}
	}
	return &transport.NodeError{Rank: e.peer, Addr: "pipe", Op: op, Err: fmt.Errorf("%w: %w", transport.ErrConnLost, err)}
}

func (e *pipeEnd) send(msg transport.Message) error {
	if msg.Kind < transport.MinKind {
		return transport.ErrReservedKind
	}
	b := make([]byte, 0, pipeHeader+len(msg.Payload))
	b = append(b, msg.Kind)
	b = binary.LittleEndian.AppendUint64(b, msg.Seq)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msg.Payload)))
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if _, err := e.c.Write(append(b, msg.Payload...)); err != nil {
		return e.fail("send", err)
	}
	return nil
}

func (e *pipeEnd) recv() (transport.Message, error) {
	var h [pipeHeader]byte
	if _, err := io.ReadFull(e.r, h[:]); err != nil {
		return transport.Message{}, e.fail("recv", err)
	}
	msg := transport.Message{Kind: h[0], Seq: binary.LittleEndian.Uint64(h[1:])}
	msg.Payload = make([]byte, binary.LittleEndian.Uint32(h[9:]))
	if _, err := io.ReadFull(e.r, msg.Payload); err != nil {
		return transport.Message{}, e.fail("recv", err)
	}
	return msg, nil
}

// close closes the end in order.
func (e *pipeEnd) close() error {
	e.l.mu.Lock()
	e.l.closed[e.side] = true
	e.l.mu.Unlock()
	return e.c.Close()
}

// pipePeers is the master's end: a Peers.
type pipePeers struct{ ends map[int]*pipeEnd }

func (p *pipePeers) Send(rank int, msg transport.Message) error { return p.ends[rank].send(msg) }

func (p *pipePeers) Recv(rank int) (transport.Message, error) { return p.ends[rank].recv() }

func (p *pipePeers) Drop(rank int) error { return p.ends[rank].close() }

func (p *pipePeers) Close() error {
	for _, e := range p.ends {
		e.close()
	}
	return nil
}

// pipeSlave is a slave's end: a Conn.
type pipeSlave struct{ e *pipeEnd }

func (s *pipeSlave) Send(msg transport.Message) error { return s.e.send(msg) }

func (s *pipeSlave) Recv() (transport.Message, error) { return s.e.recv() }

func (s *pipeSlave) Close() error { return s.e.close() }

// cutReader reads r and calls cut once after bytes were read.
type cutReader struct {
	r     io.Reader
	after int64
	n     int64
	cut   func()
	once  sync.Once
}

func (c *cutReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n += int64(k)
	if c.n >= c.after {
		c.once.Do(c.cut)
	}
	return k, err
}
