//go:build linux

package pager

import (
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/transport"
)

// TestServerAnswer checks the helper's page server on its shared state and
// snapshot: it serves held pages as of the node's version only, waits while
// the node is behind or rewriting the snapshot, reads ahead for a reader in
// order, learns the reader, and refuses what it does not hold.
func TestServerAnswer(t *testing.T) {
	const ps, npages = 64, 16
	fd, err := newStateFile(npages)
	if err != nil {
		t.Fatal(err)
	}
	st, err := mapState(fd, npages)
	if err != nil {
		t.Fatal(err)
	}
	defer st.unmap()
	snap := make([]byte, ps*npages)
	for i := range snap {
		snap[i] = byte(i / ps)
	}
	h := &helper{cfg: wireConfig{Rank: 1, Size: 3, PageSize: ps}, npages: npages, state: st, snap: snap}
	for p := 4; p < 9; p++ {
		st.setHeld(p, true)
	}
	st.storeVersion(updating)
	req := func(p int, v uint64) transport.Message {
		return transport.Message{Kind: KindPageReq, Seq: v, Payload: AppendRequest(nil, p)}
	}
	var rs readState
	got := make(chan []byte)
	go func() {
		out, err := h.answer(0, req(4, 3), &rs)
		if err != nil {
			t.Error(err)
		}
		got <- out
	}()
	time.Sleep(20 * time.Millisecond)
	select {
	case <-got:
		t.Fatal("served while the node rewrote its snapshot")
	default:
	}
	st.storeVersion(3)
	if out := <-got; len(out) != 8+ps || out[8] != 4 {
		t.Fatalf("page 4: %d bytes", len(out))
	}
	if out, err := h.answer(0, req(5, 3), &rs); err != nil || len(out) != 2*(8+ps) || out[8+ps+8] != 6 {
		t.Fatalf("page 5 after 4: %d bytes, %v; want two pages", len(out), err)
	}
	if st.readersOf(4) != 1 || st.readersOf(6) != 0 || st.takeServed() != 3*(8+ps) {
		t.Fatalf("readers of 4: %b, of 6 (read ahead): %b", st.readersOf(4), st.readersOf(6))
	}
	for _, c := range []struct {
		p    int
		v    uint64
		want string
	}{{9, 3, "does not hold"}, {4, 2, "it is at #3"}, {99, 3, "page request for page 99"}} {
		if _, err := h.answer(2, req(c.p, c.v), &readState{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("page %d as of #%d: %v, want an error saying %q", c.p, c.v, err, c.want)
		}
	} // Once the node dropped its snapshot (no node fetches its pages any
	// more), a late request fails rather than reading released bytes.
	st.dropHeld()
	if out, err := h.answer(0, req(4, 3), &readState{}); err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Errorf("page 4 after the snapshot was dropped: %d bytes, %v; want an error", len(out), err)
	}
}
