//go:build linux

package pager

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// Self replicas (distributed homes on one host, docs/homes.md "Loss
// recovery"). Where every node runs on one host, a node's loss is its
// process's, not the host's: its helper, a process of its own (in a process
// group of its own, so that the launcher's kill of the node's group spares
// it), keeps serving the node's pages after the node is gone. So a slave
// replicates to itself: before its notice its helper stores the pages it
// wrote in its own replica (two versions a page, as a buddy would), and
// nothing crosses to another node.
//
// A helper told to keep serving (KeepServing) that sees its node's socket
// end without the node's goodbye (Close) becomes an orphan: it stops
// resolving faults, closes its own connections to the other servers (so
// that two orphans do not keep each other alive), and answers every
// request from its replica, as of the version asked, until the master's
// helper, or every helper, left its server (the job ended), or the process
// that started its node (the launcher) is gone. Its standard error is the
// node's, which the launcher reads to its end: it must not linger.

// storeOwn stores, as version c.Seq, the pages of c's ranges from the
// pending file in this node's own replica; with c.Full, first every page
// the node holds, from the snapshot, as of its version.
func (h *helper) storeOwn(c command) error {
	r, err := h.replicaOf(h.cfg.Rank)
	if err != nil {
		return err
	}
	ps := h.cfg.PageSize
	if c.Full {
		seq := h.state.loadVersion() &^ updating
		for p := range h.npages {
			if h.state.isHeld(p) {
				r.store(p, seq, h.snap[p*ps:(p+1)*ps])
			}
		}
	}
	for _, rg := range c.Ranges {
		for p := rg[0]; p < rg[1]; p++ {
			r.store(p, c.Seq, h.pend[p*ps:(p+1)*ps])
		}
	}
	return nil
}

// orphanPoll is how often an orphan checks whether it is still needed.
const orphanPoll = 50 * time.Millisecond

// serveOrphan serves the node's pages from its replica, once the node is
// gone, until nothing needs them (above).
func (h *helper) serveOrphan() {
	h.orphaned.Store(true)
	for i, c := range h.conns {
		if c != nil {
			h.connMu[i].Lock()
			_ = c.Close()
			h.dead[i].Store(true)
			h.connMu[i].Unlock()
		}
	}
	for {
		time.Sleep(orphanPoll)
		if h.clients.Load() == 0 || h.masterGone.Load() || h.launcher > 0 && errors.Is(unix.Kill(h.launcher, 0), unix.ESRCH) {
			return
		}
	}
}

// orphanAnswer answers a page request once the node is gone: page p as of
// version v and the pages after it, from the node's own replica (the
// asking helper installs only those it knows this node to hold).
func (h *helper) orphanAnswer(p int, v uint64) ([]byte, error) {
	return h.replicaPages(h.cfg.Rank, p, v)
}
