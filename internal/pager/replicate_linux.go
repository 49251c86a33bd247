//go:build linux

package pager

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cape-go/cape/transport"
	"golang.org/x/sys/unix"
)

// Replication to a buddy and recovery from it, the helper's side
// (distributed homes, docs/homes.md "Loss recovery"). Before its notice, a
// node copies the pages it wrote into the pending file and asks its helper
// to send them to its buddy's server (command): the notice leaves only
// once the buddy has them, so every page a release names has two copies.
// A fetch from a holder that is gone falls back to the node keeping its
// replica (the state's replica table).

// command is a node's request to its helper: replicate to Buddy the pages
// of Ranges, from the pending file, as version Seq; with Full, first every
// page the node holds, from the snapshot, as of the node's version (a new
// buddy has none of them).
//
// With Op "keep", it asks the helper to keep serving the node's pages
// from its own replica if the node ends without Op "exit" (its goodbye),
// until Launcher, the node's parent, is gone (self replicas,
// orphan_linux.go).
//
// With Op "notwins", it tells the helper that the node's regions are
// over: the pages it installs from then on get no twin.
//
// With Op "page", it asks instead for page Page of node Origin's replica
// as of version Seq, kept by node Buddy (the master reading the pages of
// a node lost after its notice); the answer is a line "page N" and the N
// bytes. With Op "drop", it drops the replica of node Origin's pages kept
// here (the master has taken them over).
type command struct {
	Op       string
	Seq      uint64
	Buddy    int
	Full     bool
	Ranges   [][2]int
	Origin   int
	Page     int
	Launcher int
}

// readCommand reads the node's next command and carries it out in the
// background, answering on the socket; done reports that the node closed
// its end.
func (h *helper) readCommand() (done bool, err error) {
	var c command
	if err := h.dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		return true, fmt.Errorf("read the node's command: %w", err)
	}
	for _, r := range c.Ranges {
		if r[0] < 0 || r[0] >= r[1] || r[1] > h.npages {
			return true, fmt.Errorf("the node asked to replicate pages [%d, %d) of a %d-page arena", r[0], r[1], h.npages)
		}
	}
	switch c.Op {
	case "exit":
		h.bye.Store(true)
		return true, nil
	case "keep":
		h.launcher = c.Launcher
		if err := unix.Setpgid(0, 0); err != nil {
			fmt.Fprintf(h.sock, "error: leave the node's process group: %v\n", err)
			return false, nil
		}
		h.keepOwn()
		h.keepServing.Store(true)
		_, err := fmt.Fprintf(h.sock, "ok\n")
		return err != nil, err
	case "notwins":
		h.noTwins.Store(true)
		_, err := fmt.Fprintf(h.sock, "ok\n")
		return err != nil, err
	}
	go func() {
		// The node waits for this answer before its next command, so
		// answers never interleave.
		var page []byte
		var err error
		to := -1
		switch c.Op {
		case "page":
			page, err = h.replicaPage(c)
		case "drop":
			err = h.dropReplica(c.Origin)
		default:
			to, err = h.replicate(c)
		}
		switch {
		case err != nil:
			fmt.Fprintf(h.sock, "error: %v\n", err)
		case c.Op == "page":
			fmt.Fprintf(h.sock, "page %d\n", len(page))
			_, _ = h.sock.Write(page)
		case c.Op == "drop":
			fmt.Fprintf(h.sock, "ok\n")
		default:
			fmt.Fprintf(h.sock, "ok %d\n", to)
		}
	}()
	return false, nil
}

// replicate sends the pages of c to c.Buddy's server and waits until it
// has them, and returns the rank it replicated to: if the buddy is gone
// (lost, not yet out of the live set), the master, which keeps a replica
// until the next live set names another buddy, gets every page the node
// holds and those of c (fetches of this node's pages try the master after
// the buddy).
func (h *helper) replicate(c command) (int, error) {
	gone, err := h.replicateTo(c.Buddy, c)
	if !gone || c.Buddy == 0 || h.cfg.Rank == 0 {
		return c.Buddy, err
	}
	c.Full = true
	if _, err2 := h.replicateTo(0, c); err2 != nil {
		return 0, fmt.Errorf("%w; then to the master: %w", err, err2)
	}
	return 0, nil
}

// replicateTo sends the pages of c to node b's server and waits until it
// has them; gone reports that the connection failed.
func (h *helper) replicateTo(b int, c command) (gone bool, err error) {
	if b < 0 || b >= len(h.conns) || h.conns[b] == nil {
		return false, fmt.Errorf("replicate to node %d: no connection to its page server", b)
	}
	if h.dead[b].Load() {
		return true, fmt.Errorf("replicate to node %d: its page server is gone", b)
	}
	h.connMu[b].Lock()
	defer h.connMu[b].Unlock()
	w := runWriter{conn: h.conns[b], ps: h.cfg.PageSize}
	if err := h.sendReplica(&w, c); err != nil {
		h.dead[b].Store(true)
		return true, fmt.Errorf("replicate to node %d: %w", b, err)
	}
	msg, err := w.conn.Recv()
	switch {
	case err != nil:
		h.dead[b].Store(true)
		return true, fmt.Errorf("replicate to node %d: %w", b, err)
	case msg.Kind == KindPageErr:
		return false, fmt.Errorf("node %d refused the replicated pages: %s", b, msg.Payload)
	case msg.Kind != KindReplAck || msg.Seq != c.Seq:
		return false, fmt.Errorf("replicate to node %d: answered kind %d for version %d, want kind %d for %d", b, msg.Kind, msg.Seq, KindReplAck, c.Seq)
	}
	return false, nil
}

// sendReplica sends, through w, the pages c asks for and the end; an
// error is the connection's.
func (h *helper) sendReplica(w *runWriter, c command) error {
	if c.Full {
		seq := h.state.loadVersion() &^ updating
		for p := 0; p < h.npages; {
			if !h.state.isHeld(p) {
				p++
				continue
			}
			q := p + 1
			for q < h.npages && h.state.isHeld(q) {
				q++
			}
			if err := w.send(seq, p, q, h.snap); err != nil {
				return err
			}
			p = q
		}
	}
	for _, r := range c.Ranges {
		if err := w.send(c.Seq, r[0], r[1], h.pend); err != nil {
			return err
		}
	}
	return w.conn.Send(transport.Message{Kind: KindReplEnd, Seq: c.Seq})
}

// runWriter sends runs of pages as replicate messages, each a header and
// the pages' bytes straight from the shared file, ReplPages at most.
type runWriter struct {
	conn *transport.Slave
	ps   int
	hdr  []byte
}

// send sends pages [lo, hi) of mem (the snapshot or the pending file) as
// version seq.
func (w *runWriter) send(seq uint64, lo, hi int, mem []byte) error {
	k := ReplPages(w.ps)
	for p := lo; p < hi; p += k {
		q := min(p+k, hi)
		w.hdr = AppendRunHeader(w.hdr[:0], p)
		if err := w.conn.SendBuffers(KindReplicate, seq, [][]byte{w.hdr, mem[p*w.ps : q*w.ps]}); err != nil {
			return err
		}
	}
	return nil
}

// fetchFromReplica fetches page p of the lost node origin (its server is
// gone: cause) from the node keeping its replica, or else the master (a
// node whose buddy was lost replicates there), as of version v, and
// installs it with the replica's pages after it that the node lacks and
// origin held.
func (h *helper) fetchFromReplica(origin, p int, v uint64, cause error) error {
	at := h.state.replicaAt(origin)
	if at < 0 {
		return fmt.Errorf("%w; no other node keeps its pages", cause)
	}
	err := h.fromReplica(origin, p, v, at, func(q int, content []byte) error {
		if q != p && h.state.holder(q) != origin {
			return nil
		}
		return h.install(q, content)
	})
	if err != nil {
		return fmt.Errorf("%w; %w", cause, err)
	}
	return nil
}

// replicaPage returns page c.Page of node c.Origin's replica as of
// version c.Seq, from node c.Buddy or else the master (either may be this
// node).
func (h *helper) replicaPage(c command) ([]byte, error) {
	if c.Origin < 0 || c.Origin >= h.cfg.Size || c.Page < 0 || c.Page >= h.npages {
		return nil, fmt.Errorf("page %d of node %d's replica: no such page or node", c.Page, c.Origin)
	}
	var page []byte
	err := h.fromReplica(c.Origin, c.Page, c.Seq, c.Buddy, func(q int, content []byte) error {
		if q == c.Page {
			page = append([]byte(nil), content...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("page %d of node %d's replica: %w", c.Page, c.Origin, err)
	}
	return page, nil
}

// fromReplica reads page p of node origin's replica as of version v, with
// the replica's pages after it, from node at, or else from the master
// (either may be this node, which then reads its own replica), and hands
// each page to use.
func (h *helper) fromReplica(origin, p int, v uint64, at int, use func(q int, content []byte) error) error {
	tries := []int{at}
	if at != 0 {
		tries = append(tries, 0)
	}
	var errs []string
	for _, at := range tries {
		var err error
		switch {
		case at == h.cfg.Rank:
			var out []byte
			if out, err = h.replicaPages(origin, p, v); err == nil {
				return ParseAnswer(out, p, h.npages, h.cfg.PageSize, use)
			}
		case at < 0 || at >= len(h.conns) || h.conns[at] == nil || h.dead[at].Load():
			err = fmt.Errorf("node %d, which may keep its pages, is unreachable", at)
		default:
			if _, err = h.fetchFrom(at, transport.Message{Kind: KindReplicaReq, Seq: v, Payload: AppendReplicaRequest(nil, origin, p)}, p, use); err == nil {
				return nil
			}
			err = fmt.Errorf("from node %d's replica: %w", at, err)
		}
		errs = append(errs, err.Error())
	}
	return errors.New(strings.Join(errs, "; "))
}
