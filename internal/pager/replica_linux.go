//go:build linux

package pager

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A replica is what a buddy keeps of one other node's pages (distributed
// homes with replication): two versions of each page, the newest two it
// was sent. A node sends the pages it wrote in a region before its notice,
// so one of the two may be the version of a region not yet released (its
// node may be lost before the release); the other is then the released
// one. Asked for a page as of version v, the replica answers the newest of
// the two at most v.
type replica struct {
	mu   sync.RWMutex
	ps   int
	mem  []byte   // two slots per page: page p's slot s at (2p+s) × ps; nil once dropped
	vmem []byte   // the mapping of ver
	ver  []uint64 // per slot, its version + 1 (0: empty)
	// own: the node's own replica (self replicas), in files the node
	// writes (Helper.KeepOwn) and this process maps read-only, never
	// dropped: slot 0 of page p in mem at p × ps, slot 1 in mem1 (the
	// snapshot and pending files, which self replicas use for nothing
	// else).
	own  bool
	mem1 []byte
}

// newReplica maps the storage of a replica of an arena of npages pages of
// ps bytes: address space only, until pages arrive.
func newReplica(npages, ps int) (*replica, error) {
	mem, err := unix.Mmap(-1, 0, 2*npages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("map a replica: %w", err)
	}
	// A Go slice of 2 × npages words would be zeroed, hence resident, at
	// once; a mapping is resident only where versions are stored.
	vmem, err := unix.Mmap(-1, 0, 16*npages, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		_ = unix.Munmap(mem)
		return nil, fmt.Errorf("map a replica's versions: %w", err)
	}
	return &replica{ps: ps, mem: mem, vmem: vmem, ver: wordsOf(vmem)}, nil
}

// store keeps content as page p's version v: in the slot that holds v
// already (a page sent again), else in the older slot.
func (r *replica) store(p int, v uint64, content []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mem == nil {
		return // dropped: a late copy from a node already taken over
	}
	storeSlot(r.mem, r.mem1, r.ver, r.ps, p, v, content)
}

// slotPage returns slot s of page p in two-slot storage: interleaved in mem
// (slot s at (2p+s) × ps) where mem1 is nil, else slot 0 in mem and slot 1
// in mem1, at p × ps.
func slotPage(mem, mem1 []byte, ps, p, s int) []byte {
	switch {
	case mem1 == nil:
		return mem[(2*p+s)*ps : (2*p+s+1)*ps]
	case s == 0:
		return mem[p*ps : (p+1)*ps]
	}
	return mem1[p*ps : (p+1)*ps]
}

// storeSlot keeps content as page p's version v in the two-slot storage
// mem, mem1 (slotPage) whose versions are ver (+1; 0: empty): in the slot
// that holds v already, else in the older slot, whose version it sets
// once the bytes are in. A reader as of a version below v
// never reads that slot (it reads the newer one), so a node may store its
// own pages here while its helper reads them (self replicas).
func storeSlot(mem, mem1 []byte, ver []uint64, ps, p int, v uint64, content []byte) {
	s := 0
	switch a, b := atomic.LoadUint64(&ver[2*p]), atomic.LoadUint64(&ver[2*p+1]); {
	case a == v+1:
	case b == v+1 || b < a:
		s = 1
	}
	copy(slotPage(mem, mem1, ps, p, s), content)
	atomic.StoreUint64(&ver[2*p+s], v+1)
}

// slot returns the slot of page p's newest version at most v, or -1.
// r.mu must be held.
func (r *replica) slot(p int, v uint64) int { return newestSlot(r.ver, p, v) }

// newestSlot returns the slot of page p's newest version at most v in
// two-slot storage whose versions are ver (+1; 0: empty), or -1.
func newestSlot(ver []uint64, p int, v uint64) int {
	best, bv := -1, uint64(0)
	for s := range 2 {
		if x := atomic.LoadUint64(&ver[2*p+s]); x != 0 && x-1 <= v && (best < 0 || x > bv) {
			best, bv = s, x
		}
	}
	return best
}

// appendPages appends to out, as answer entries, page p as of version v
// and the pages after it the replica has as of v, up to want in all; it
// reports false if the replica lacks p as of v.
func (r *replica) appendPages(out []byte, p int, v uint64, want, npages int) ([]byte, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.mem == nil {
		return out, false
	}
	for q := p; q < p+want && q < npages; q++ {
		s := r.slot(q, v)
		if s < 0 {
			return out, q > p
		}
		out = AppendPage(out, q, slotPage(r.mem, r.mem1, r.ps, q, s))
	}
	return out, true
}

// replicaOf returns the replica of node origin's pages, made on first use.
func (h *helper) replicaOf(origin int) (*replica, error) {
	h.replMu.Lock()
	defer h.replMu.Unlock()
	if r := h.replicas[origin]; r != nil {
		return r, nil
	}
	r, err := newReplica(h.npages, h.cfg.PageSize)
	if err != nil {
		return nil, err
	}
	if h.replicas == nil {
		h.replicas = map[int]*replica{}
	}
	h.replicas[origin] = r
	return r, nil
}

// existingReplica returns the replica of origin's pages, or nil.
func (h *helper) existingReplica(origin int) *replica {
	h.replMu.Lock()
	defer h.replMu.Unlock()
	return h.replicas[origin]
}

// dropReplica drops the replica of node origin's pages kept here, if any,
// and gives its memory back.
func (h *helper) dropReplica(origin int) error {
	h.replMu.Lock()
	r := h.replicas[origin]
	if r != nil && r.own {
		r = nil
	} else {
		delete(h.replicas, origin)
	}
	h.replMu.Unlock()
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	err := errors.Join(unix.Munmap(r.mem), unix.Munmap(r.vmem))
	r.mem, r.vmem, r.ver = nil, nil, nil
	if err != nil {
		return fmt.Errorf("drop node %d's replica: %w", origin, err)
	}
	return nil
}
