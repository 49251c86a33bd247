//go:build linux

package pager

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"time"

	"github.com/cape-go/cape/transport"
	"golang.org/x/sys/unix"
)

// The helper's page server (distributed homes): it answers the other
// nodes' helpers from the snapshot file, where the node keeps the pages it
// holds as of its last release, so that serving a page never needs the
// node's Go scheduler. A node whose threads wait in page faults, or are
// stopped for a garbage collection, still serves its pages; in the node,
// two nodes faulting on each other's pages while collecting garbage would
// wait for each other for ever.

// listen opens the server's port on the configured host, maps the
// snapshot and returns the port.
func (h *helper) listen() (int, error) {
	snap, err := unix.Mmap(helperSnapFD, 0, h.cfg.ArenaSize, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return 0, fmt.Errorf("map the snapshot: %w", err)
	}
	h.snap = snap
	if h.pend, err = unix.Mmap(helperPendFD, 0, h.cfg.ArenaSize, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_NORESERVE); err != nil {
		return 0, fmt.Errorf("map the pending file: %w", err)
	}
	if err := h.mapOwn(); err != nil {
		return 0, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(h.cfg.ServeHost, "0"))
	if err != nil {
		return 0, fmt.Errorf("open the page server: %w", err)
	}
	h.ln = ln
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startServer accepts the other nodes' helpers in the background and
// serves each.
func (h *helper) startServer() {
	c := &h.cfg
	tcfg := transport.Config{Token: c.Token, JobID: ServerJobID(c.Job, c.Rank), Size: c.Size,
		Broadcast: transport.BroadcastStar, MaxFrame: ReplFrame, PeerTimeout: c.PeerTimeout}
	if d := c.PeerTimeout; d > 0 {
		tcfg.HandshakeTimeout = transport.JoinTimeout(d)
	}
	go func() {
		pm, err := transport.NewMaster(h.ln, tcfg)
		_ = h.ln.Close()
		if err != nil {
			// The nodes whose helpers did not connect fail their own
			// set-up; this one's fetches from them fail in turn.
			fmt.Fprintf(os.Stderr, "cape: node %d: page server: wait for the other nodes' page helpers: %v\n", c.Rank, err)
			return
		}
		h.clients.Add(int32(c.Size - 1))
		for id := 1; id < c.Size; id++ {
			go h.serveClient(pm, id)
		}
	}()
}

// serveClient answers the requests of the helper connected under id until
// its connection ends. A refused request is answered with the reason: the
// asking helper stops its node, naming this one.
func (h *helper) serveClient(pm *transport.Master, id int) {
	rank := ClientRank(id, h.cfg.Rank, h.cfg.Size)
	defer func() {
		if rank == 0 {
			h.masterGone.Store(true)
		}
		h.clients.Add(-1)
	}()
	var rs readState
	var replErr error // the first replicated page refused since the last replEnd
	for {
		msg, err := pm.Recv(id)
		if err != nil {
			return
		}
		var out []byte
		kind := uint8(KindPages)
		switch msg.Kind {
		case KindReplicate:
			if replErr == nil {
				replErr = h.storeReplica(rank, msg)
			}
			pm.Release(id, msg.Payload)
			continue
		case KindReplEnd:
			kind, err, replErr = KindReplAck, replErr, nil
		case KindReplicaReq:
			out, err = h.answerReplica(rank, msg)
		default:
			out, err = h.answer(rank, msg, &rs)
		}
		reply := transport.Message{Kind: kind, Seq: msg.Seq, Payload: out}
		if err != nil {
			reply = transport.Message{Kind: KindPageErr, Seq: msg.Seq, Payload: []byte(err.Error())}
		}
		if err := pm.Send(id, reply); err != nil {
			return
		}
	}
}

// readState is what the server remembers of one reader: the page after the
// last one it served, and how many that answer held.
type readState struct{ next, ahead int }

// versionWait bounds how long a request waits for the node to take the
// release it asks pages as of (the asking node has taken it; this one is
// taking it, or is gone).
const versionWait = 2 * time.Minute

// answer returns the pages for a request of rank's helper as of the
// version it is at: the page asked for and, where rank reads this node's
// pages in order (it asks for the page after the last one served), the
// held pages after it, twice as many as last time, up to MaxPages. The
// snapshot's pages are copied under the version word: a copy the node
// overwrote meanwhile is taken again.
func (h *helper) answer(rank int, msg transport.Message, rs *readState) ([]byte, error) {
	if msg.Kind != KindPageReq {
		return nil, fmt.Errorf("message kind %d, want a page request", msg.Kind)
	}
	p, err := ParseRequest(msg.Payload, h.npages)
	if err != nil {
		return nil, err
	}
	ps := h.cfg.PageSize
	for deadline := time.Now().Add(versionWait); ; {
		if h.orphaned.Load() {
			return h.orphanAnswer(p, msg.Seq)
		}
		v := h.state.loadVersion()
		switch {
		case v == msg.Seq:
			out, ok := h.copyPages(p, v, rs)
			if h.state.loadVersion() != v {
				continue // the node rewrote the snapshot meanwhile
			}
			if !ok {
				return nil, fmt.Errorf("node %d asked node %d for page %d as of region #%d, which it does not hold", rank, h.cfg.Rank, p, msg.Seq)
			}
			h.state.learn(p, rank)
			h.state.addServed(len(out))
			rs.next, rs.ahead = p+len(out)/(8+ps), len(out)/(8+ps)
			return out, nil
		case v&updating == 0 && v > msg.Seq:
			return nil, fmt.Errorf("node %d asked node %d for page %d as of region #%d; it is at #%d", rank, h.cfg.Rank, p, msg.Seq, v)
		case time.Now().After(deadline):
			return nil, fmt.Errorf("node %d asked node %d for page %d as of region #%d, which it has not reached in %v", rank, h.cfg.Rank, p, msg.Seq, versionWait)
		}
		runtime.Gosched()
		time.Sleep(20 * time.Microsecond)
	}
}

// copyPages returns page p as of version v and the held pages read ahead
// after it, from the snapshot (or, with self replicas, the node's own
// replica), or false if p is not held.
func (h *helper) copyPages(p int, v uint64, rs *readState) ([]byte, bool) {
	if !h.state.isHeld(p) {
		return nil, false
	}
	ps := h.cfg.PageSize
	want := 1
	if p == rs.next {
		want = max(1, min(2*rs.ahead, MaxPages))
	}
	held := 1
	for held < want && p+held < h.npages && h.state.isHeld(p+held) {
		held++
	}
	out := make([]byte, 0, held*(8+ps))
	if own := h.ownServed(); own != nil {
		// Self replicas: the node's pages are in its own replica, as
		// of every version it was at (the snapshot is not written).
		return own.appendPages(out, p, v, held, h.npages)
	}
	for q := p; q < p+held; q++ {
		out = AppendPage(out, q, h.snap[q*ps:(q+1)*ps])
	}
	// Still held after the copy: the node drops a page's bit before it
	// releases its bytes (Helper.DropSnapshot).
	for q := p; q < p+held; q++ {
		if !h.state.isHeld(q) {
			return nil, false
		}
	}
	return out, true
}

// ownServed returns the node's own replica where the helper serves the
// node's pages from it (self replicas, KeepServing), else nil.
func (h *helper) ownServed() *replica {
	if !h.keepServing.Load() {
		return nil
	}
	return h.existingReplica(h.cfg.Rank)
}

// storeReplica keeps the pages of a replicate message from node origin's
// helper in origin's replica.
func (h *helper) storeReplica(origin int, msg transport.Message) error {
	r, err := h.replicaOf(origin)
	if err != nil {
		return err
	}
	first, content, err := ParseRun(msg.Payload, h.npages, h.cfg.PageSize)
	if err != nil {
		return fmt.Errorf("node %d's replicated pages: %w", origin, err)
	}
	ps := h.cfg.PageSize
	for i := 0; i < len(content); i += ps {
		r.store(first+i/ps, msg.Seq, content[i:i+ps])
	}
	return nil
}

// answerReplica answers rank's request for a page of a lost node's
// replica, as of the version it asks: the page and the replica's pages
// after it (the asker installs only those it lacks and the lost node
// held).
func (h *helper) answerReplica(rank int, msg transport.Message) ([]byte, error) {
	origin, p, err := ParseReplicaRequest(msg.Payload, h.cfg.Size, h.npages)
	if err != nil {
		return nil, err
	}
	out, err := h.replicaPages(origin, p, msg.Seq)
	if err != nil {
		return nil, fmt.Errorf("node %d asked node %d: %w", rank, h.cfg.Rank, err)
	}
	return out, nil
}

// replicaPages returns page p of node origin's replica as of version v,
// with the pages after it read ahead, as an answer's entries.
func (h *helper) replicaPages(origin, p int, v uint64) ([]byte, error) {
	r := h.existingReplica(origin)
	if r == nil {
		return nil, fmt.Errorf("no replica of node %d's pages here", origin)
	}
	out, ok := r.appendPages(make([]byte, 0, MaxPages*(8+h.cfg.PageSize)), p, v, MaxPages, h.npages)
	if !ok {
		return nil, fmt.Errorf("page %d of node %d as of region #%d is not in its replica here", p, origin, v)
	}
	return out, nil
}

var errNoPort = errors.New("the helper gave no page server port")

// parsePort reads the helper's "listening PORT" line.
func parsePort(line string) (int, error) {
	var port int
	if _, err := fmt.Sscanf(line, "listening %d", &port); err != nil || port <= 0 || port > 65535 {
		return 0, fmt.Errorf("%w in %q", errNoPort, line)
	}
	return port, nil
}
