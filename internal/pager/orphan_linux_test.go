//go:build linux

package pager

import (
	"bytes"
	"testing"

	"github.com/cape-go/cape/transport"
)

// TestOrphanServesOwnReplica checks self replicas: a node's helper keeps
// the pages the node wrote in its own replica (storeOwn, from the pending
// file), and once orphaned (the node gone) answers a page request as of
// the version asked from it: the newest version at most that one, so never
// the pages of a region the node sent before a release that never came.
func TestOrphanServesOwnReplica(t *testing.T) {
	const ps, npages = 64, 8
	h := &helper{cfg: wireConfig{Rank: 1, Size: 3, PageSize: ps}, npages: npages, pend: make([]byte, npages*ps)}
	// keep stores pages [lo, hi) as version v, page p holding 10v + p.
	keep := func(v uint64, lo, hi int) {
		for p := lo; p < hi; p++ {
			copy(h.pend[p*ps:(p+1)*ps], bytes.Repeat([]byte{byte(10*v) + byte(p)}, ps))
		}
		if to, err := h.replicate(command{Seq: v, Buddy: 1, Ranges: [][2]int{{lo, hi}}}); err != nil || to != 1 {
			t.Fatalf("replicate to itself: %d, %v", to, err)
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
}
