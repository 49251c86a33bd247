//go:build linux

package pager

import (
	"bytes"
	"testing"

	"github.com/cape-go/cape/transport"
)

// TestOrphanServesOwnReplica checks self replicas: a node keeps the pages
// it wrote in its own replica (storeSlot, as Helper.KeepOwn does), and its
// helper, once orphaned (the node gone), answers a page request as of the
// version asked from it: the newest version at most that one, so never
// the pages of a region the node stored before a release that never came.
func TestOrphanServesOwnReplica(t *testing.T) {
	const ps, npages = 64, 8
	own := &replica{ps: ps, mem: make([]byte, npages*ps), mem1: make([]byte, npages*ps), ver: make([]uint64, 2*npages), own: true}
	h := &helper{cfg: wireConfig{Rank: 1, Size: 3, PageSize: ps}, npages: npages, replicas: map[int]*replica{1: own}}
	// keep stores pages [lo, hi) as version v, page p holding 10v + p.
	keep := func(v uint64, lo, hi int) {
		for p := lo; p < hi; p++ {
			storeSlot(own.mem, own.mem1, own.ver, ps, p, v, bytes.Repeat([]byte{byte(10*v) + byte(p)}, ps))
		}
	}
	keep(3, 2, 5)
	keep(4, 2, 3)
	keep(6, 3, 4) // the node is lost before region #6's release
	h.orphaned.Store(true)
	for _, c := range []struct {
		p    int
		v    uint64
		want map[int]byte
	}{
		{2, 5, map[int]byte{2: 42, 3: 33, 4: 34}},
		{3, 5, map[int]byte{3: 33, 4: 34}},
		{3, 6, map[int]byte{3: 63, 4: 34}},
		{2, 3, map[int]byte{2: 32, 3: 33, 4: 34}},
	} {
		out, err := h.answer(0, transport.Message{Kind: KindPageReq, Seq: c.v, Payload: AppendRequest(nil, c.p)}, &readState{})
		if err != nil {
			t.Fatalf("page %d as of #%d: %v", c.p, c.v, err)
		}
		got := map[int]byte{}
		if err := ParseAnswer(out, c.p, npages, ps, func(q int, b []byte) error { got[q] = b[0]; return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Errorf("page %d as of #%d: pages %v, want %v", c.p, c.v, got, c.want)
		}
		for q, b := range c.want {
			if got[q] != b {
				t.Errorf("page %d as of #%d: page %d holds %d, want %d", c.p, c.v, q, got[q], b)
			}
		}
	}
	if _, err := h.answer(0, transport.Message{Kind: KindPageReq, Seq: 9, Payload: AppendRequest(nil, 1)}, &readState{}); err == nil {
		t.Error("a page the node never wrote was served")
	}
	if err := h.dropReplica(1); err != nil || h.existingReplica(1) == nil {
		t.Errorf("the node's own replica was dropped: %v", err)
	}
}
