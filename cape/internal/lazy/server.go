package lazy

import (
	"fmt"

	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/transport"
)

// accept waits, in the background, for the slaves' helpers to connect,
// then serves them. Its error, unless Close caused it, fails the next
// Exchange.
func (m *Master) accept(tcfg transport.Config, size int) {
	defer m.wg.Done()
	pm, err := transport.NewMaster(m.ln, tcfg)
	// Every helper is in, or none will be: nothing more is accepted for
	// the page server (its share of the master's port ends).
	_ = m.ln.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		if pm != nil {
			_ = pm.Close()
		}
		return
	}
	if err != nil {
		m.acceptErr = fmt.Errorf("wait for the slaves' page helpers: %w", err)
		return
	}
	m.pm = pm
	for rank := 1; rank < size; rank++ {
		m.wg.Add(1)
		go m.serve(pm, rank)
	}
}

// serve answers the page requests of one slave's helper until its
// connection ends. A refused request is answered with the reason (the
// helper then stops its node, naming it); the end of a connection is not an
// error here: the slave's own connection tells the job.
func (m *Master) serve(pm *transport.Master, rank int) {
	defer m.wg.Done()
	for {
		msg, err := pm.Recv(rank)
		if err != nil {
			return
		}
		out, err := m.answer(rank, msg)
		reply := transport.Message{Kind: pager.KindPages, Seq: msg.Seq, Payload: out}
		if err != nil {
			reply = transport.Message{Kind: pager.KindPageErr, Seq: msg.Seq, Payload: []byte(err.Error())}
		}
		if err := pm.Send(rank, reply); err != nil {
			return
		}
	}
}

// answer returns the pages for a request of rank's helper: the page asked
// for and, when the slave reads pages in order (it asks for the page after
// the last one served), the pages after it that it lacks too (read ahead).
// A single page otherwise: a page read ahead counts as read, and would be
// pushed at every instance of its region.
func (m *Master) answer(rank int, msg transport.Message) ([]byte, error) {
	if msg.Kind != pager.KindPageReq {
		return nil, fmt.Errorf("message kind %d, want a page request", msg.Kind)
	}
	p, err := pager.ParseRequest(msg.Payload, m.npages)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if msg.Seq != m.version {
		return nil, fmt.Errorf("node %d asked for page %d as of region #%d; the master is at #%d", rank, p, msg.Seq, m.version)
	}
	lacks := m.lacks[rank]
	if _, ok := lacks[p]; !ok {
		return nil, fmt.Errorf("node %d asked for page %d, which it holds", rank, p)
	}
	out := make([]byte, 0, 2*(8+m.ps))
	ahead := 1
	if p == m.next[rank] {
		ahead = pager.MaxPages
	}
	q := p
	for ; q < m.npages && q < p+ahead; q++ {
		region, ok := lacks[q]
		if !ok {
			break
		}
		out = pager.AppendPage(out, q, m.snap[q])
		m.unlack(rank, q)
		m.learnedSet(region, rank)[q] = struct{}{}
	}
	m.next[rank] = q
	m.served[rank] += len(out)
	return out, nil
}
