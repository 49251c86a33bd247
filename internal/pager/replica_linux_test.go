//go:build linux

package pager

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cape-go/cape/transport"
)

// TestReplicaVersions checks a buddy's replica of another node's pages: it
// keeps the two newest versions of each page, answers as of a version with
// the newest at most that version (not a version its node sent before a
// release that never came), reads ahead only over pages it has as of that
// version, and refuses what it lacks.
func TestReplicaVersions(t *testing.T) {
	const ps, npages = 64, 8
	h := &helper{cfg: wireConfig{Rank: 2, Size: 3, PageSize: ps}, npages: npages}
	page := func(b byte) []byte { return bytes.Repeat([]byte{b}, ps) }
	// send replicates pages [lo, hi) as version v, page p holding 10v + p.
	send := func(v uint64, lo, hi int) {
		payload := AppendRunHeader(nil, lo)
		for p := lo; p < hi; p++ {
			payload = append(payload, page(byte(10*v)+byte(p))...)
		}
		if err := h.storeReplica(1, transport.Message{Kind: KindReplicate, Seq: v, Payload: payload}); err != nil {
			t.Fatal(err)
		}
	}
	send(3, 1, 4)
	send(5, 1, 3)
	send(6, 1, 2) // page 1's version 3 is dropped; 6 is the pending one
	send(5, 2, 3) // sent again: replaces 5, keeps 3
	get := func(p int, v uint64) (map[int]byte, error) {
		out, err := h.answerReplica(0, transport.Message{Kind: KindReplicaReq, Seq: v, Payload: AppendReplicaRequest(nil, 1, p)})
		if err != nil {
			return nil, err
		}
		got := map[int]byte{}
		err = ParseAnswer(out, p, npages, ps, func(q int, c []byte) error { got[q] = c[0]; return nil })
		return got, err
	}
	for _, c := range []struct {
		p    int
		v    uint64
		want map[int]byte
	}{
		{1, 5, map[int]byte{1: 51, 2: 52, 3: 33}},
		{1, 6, map[int]byte{1: 61, 2: 52, 3: 33}},
		{2, 4, map[int]byte{2: 32, 3: 33}},
		{3, 9, map[int]byte{3: 33}},
	} {
		got, err := get(c.p, c.v)
		if err != nil {
			t.Fatalf("page %d as of #%d: %v", c.p, c.v, err)
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
	for _, c := range []struct {
		origin, p int
		v         uint64
		want      string
	}{{1, 1, 4, "not in its replica"}, {1, 0, 9, "not in its replica"}, {0, 1, 9, "no replica of node 0"}} {
		_, err := h.answerReplica(0, transport.Message{Kind: KindReplicaReq, Seq: c.v, Payload: AppendReplicaRequest(nil, c.origin, c.p)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("node %d's page %d as of #%d: %v, want an error saying %q", c.origin, c.p, c.v, err, c.want)
		}
	}
	for _, bad := range [][]byte{append(AppendRunHeader(nil, npages-1), bytes.Repeat(page(0), 2)...), AppendRunHeader(nil, 0), append(AppendRunHeader(nil, 0), 1)} {
		if err := h.storeReplica(1, transport.Message{Kind: KindReplicate, Seq: 7, Payload: bad}); err == nil {
			t.Errorf("replicated pages %x... (%d bytes) were kept", bad[:8], len(bad))
		}
	}
	if err := h.dropReplica(1); err != nil {
		t.Fatal(err)
	}
	if _, err := get(1, 9); err == nil || !strings.Contains(err.Error(), "no replica of node 1") {
		t.Errorf("page 1 after the replica was dropped: %v", err)
	}
	if _, _, err := ParseReplicaRequest(AppendReplicaRequest(nil, 3, 0), 3, npages); err == nil {
		t.Error("a replica request for node 3 of 3 was read")
	}
}
