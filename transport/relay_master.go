package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"
)

// masterRelay is the master's relay state.
type masterRelay struct {
	setup chan relaySetupMsg // kindPort and kindReady messages during NewMaster

	mu sync.Mutex
	// mu protects the following fields.
	on   bool    // every slave reported its links up
	err  error   // why the relay is off, if it is
	next uint64  // index of the next relayed broadcast
	last relayed // the last relayed broadcast (Config.HealRelay)
}

// relayed is a relayed broadcast, kept to be sent again around a lost
// relay node.
type relayed struct {
	idx     uint64
	scheme  uint8 // kindChain or kindTree; 0: none yet
	payload []byte
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
	if err != nil && m.cfg.Notice != nil {
		m.cfg.Notice(fmt.Sprintf("relay links not up, broadcasts use the star: %v", err))
	}
	r.mu.Lock()
	r.on, r.err = err == nil, err
	r.mu.Unlock()
}

func (m *Master) buildLinks() error {
	size := m.cfg.Size
	// The slaves give up on their links after setupTimeout and report why;
	// the master waits longer, to hear it. A slave that hangs meanwhile is
	// found by its connection's PeerTimeout (deadPeer).
	timeout := time.NewTimer(2 * setupTimeout(&m.cfg))
	defer timeout.Stop()
	addrs := make([]string, size)
	readies := 0
	var errs []error
	// ready counts a slave's report on its links: empty when they are up,
	// else why not.
	ready := func(s relaySetupMsg) {
		readies++
		if len(s.p) > 0 {
			errs = append(errs, fmt.Errorf("slave %d: %s", s.rank, s.p))
		}
	}
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
				ready(s)
			}
		case <-m.notify:
			if err := m.deadPeer(); err != nil {
				return err
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
				ready(s)
			}
		case <-m.notify:
			if err := m.deadPeer(); err != nil {
				return err
			}
		case <-timeout.C:
			return fmt.Errorf("slaves' relay links: %w", ErrJoinTimeout)
		}
	}
	return errors.Join(errs...)
}

// deadPeer returns the failure of a slave whose connection failed, if one
// did: the relay set-up cannot complete without it. m.notify is signalled
// on every failure (and on every message; Gather does not depend on it).
func (m *Master) deadPeer() error {
	for _, c := range m.peers[1:] {
		if c.isDead() {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.opErr("relay setup")
		}
	}
	return nil
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
	if m.cfg.HealRelay {
		r.mu.Lock()
		r.last = relayed{idx: idx, scheme: kind, payload: msg.Payload}
		r.mu.Unlock()
	}
	return first
}

// resendAround sends the last relayed broadcast again, over their own
// connections, to the descendants of lost in its scheme (Config.HealRelay),
// which may have been cut off from it. A descendant that got it already
// ignores the copy.
func (m *Master) resendAround(lost int, last relayed) {
	if last.scheme == 0 {
		return
	}
	size := len(m.peers)
	todo := children(last.scheme, lost, size)
	for len(todo) > 0 {
		d := todo[0]
		todo = append(todo[1:], children(last.scheme, d, size)...)
		if m.isDropped(d) {
			continue
		}
		c := m.peers[d]
		go func() { _ = c.sendRaw(last.scheme, last.idx, last.payload) }()
	}
}
