//go:build linux

package pager

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Self replicas (distributed homes on one host, docs/homes.md "Loss
// recovery"). Where every node runs on one host, a node's loss is its
// process's, not the host's: its helper, a process of its own (in a process
// group of its own, so that the launcher's kill of the node's group spares
// it), keeps serving the node's pages after the node is gone. So a slave
// replicates to itself: before its notice it stores the pages it wrote in
// its own replica (two versions a page, as a buddy keeps them), files it
// shares with its helper (Helper.KeepOwn, storeSlot: its slots are the
// snapshot and the pending file, which it no longer needs), and nothing crosses
// to another node. The helper serves the node's pages from that replica
// while the node lives too: the node keeps no snapshot copy.
//
// A helper told to keep serving (KeepServing) that sees its node's socket
// end without the node's goodbye (Close) becomes an orphan: it stops
// resolving faults, closes its own connections to the other servers (so
// that two orphans do not keep each other alive), and answers every
// request from its replica, as of the version asked, until the master's
// helper, or every helper, left its server (the job ended), or the process
// that started its node (the launcher) is gone. Its standard error is the
// node's, which the launcher reads to its end: it must not linger.

// mapOwn maps, read-only, the versions of the node's own replica, which
// the node writes (Helper.KeepOwn) with its slots, the snapshot and the
// pending file (mapped by listen).
func (h *helper) mapOwn() error {
	vmem, err := unix.Mmap(helperOwnVFD, 0, 16*h.npages, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return fmt.Errorf("map the node's own replica's versions: %w", err)
	}
	h.ownVer = vmem
	return nil
}

// keepOwn makes the node's own replica the one this helper serves the
// node's pages from (KeepServing).
func (h *helper) keepOwn() {
	h.replMu.Lock()
	defer h.replMu.Unlock()
	if h.replicas == nil {
		h.replicas = map[int]*replica{}
	}
	h.replicas[h.cfg.Rank] = &replica{ps: h.cfg.PageSize, mem: h.snap, mem1: h.pend, vmem: h.ownVer, ver: wordsOf(h.ownVer), own: true}
}

// watchNode ends the helper once its node (its parent, node) is gone,
// whatever the helper is doing: still setting up, or waiting on a page
// for the node's last fault. A helper told to keep serving whose node left
// without its goodbye serves on as an orphan first.
func (h *helper) watchNode(node int) {
	for os.Getppid() == node {
		time.Sleep(orphanPoll)
	}
	if h.keepServing.Load() && !h.bye.Load() {
		h.orphan.Do(h.serveOrphan)
	}
	os.Exit(0)
}

// orphanPoll is how often an orphan checks whether it is still needed.
const orphanPoll = 50 * time.Millisecond

// serveOrphan serves the node's pages from its replica, once the node is
// gone, until nothing needs them (above).
func (h *helper) serveOrphan() {
	h.orphaned.Store(true)
	for i, c := range h.conns {
		if c != nil {
			// Not under connMu: a fetch of the node's last fault may be
			// waiting on the connection, which Close ends.
			h.dead[i].Store(true)
			go c.Close()
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
