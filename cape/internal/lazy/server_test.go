package lazy

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/transport"
)

func pageRequest(p int, version uint64) transport.Message {
	return transport.Message{Kind: pager.KindPageReq, Seq: version, Payload: pager.AppendRequest(nil, p)}
}

// TestAnswer drives the page server's answers to one slave's helper
// through a script of requests: the pages served and the bytes counted,
// read ahead only for a reader going in order and only over pages it
// lacks, and each refusal (another message kind, a malformed or
// out-of-range request, another version, a page it holds) with its
// reason, changing nothing.
func TestAnswer(t *testing.T) {
	const ps, npages, version = 16, 128, 5
	arena := make([]byte, npages*ps)
	for i := range arena {
		arena[i] = byte(i / ps)
	}
	m := newMaster(arena, ps, 2)
	for _, p := range []int{2, 3, 4, 6, 7, 8, 9} {
		m.lack(1, p, "R")
	}
	for p := 40; p < 40+pager.MaxPages+5; p++ {
		m.lack(1, p, "S")
	}
	m.snapshot(nil, nil)
	m.version = version
	clear(arena) // the arena moves on: pages are served as of the snapshot

	for i, c := range []struct {
		msg   transport.Message
		pages []int  // served, in order
		err   string // or the refusal
	}{
		{msg: transport.Message{Kind: pager.KindPages, Seq: version, Payload: pager.AppendRequest(nil, 2)}, err: "want a page request"},
		{msg: transport.Message{Kind: pager.KindPageReq, Seq: version, Payload: []byte{2}}, err: "page request of 1 bytes"},
		{msg: pageRequest(npages, version), err: "of a 128-page arena"},
		{msg: pageRequest(2, version-1), err: "as of region #4; the master is at #5"},
		{msg: pageRequest(1, version), err: "which it holds"},
		{msg: pageRequest(3, version), pages: []int{3}}, // not in order: one page
		{msg: pageRequest(4, version), pages: []int{4}}, // in order, but 5 is held
		{msg: pageRequest(3, version), err: "which it holds"},
		{msg: pageRequest(6, version), pages: []int{6}},
		{msg: pageRequest(7, version), pages: []int{7, 8, 9}},
		{msg: pageRequest(40, version), pages: []int{40}},
		{msg: pageRequest(41, version), pages: seq(41, 41+pager.MaxPages)},
		{msg: pageRequest(41+pager.MaxPages, version), pages: seq(41+pager.MaxPages, 40+pager.MaxPages+5)},
		{msg: pageRequest(2, version), pages: []int{2}},
	} {
		served := m.served[1]
		out, err := m.answer(1, c.msg)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("request %d: %v, want an error with %q", i, err, c.err)
			}
			if m.served[1] != served {
				t.Fatalf("request %d: refused, but %d bytes counted as served", i, m.served[1]-served)
			}
			continue
		}
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		var got []int
		err = pager.ParseAnswer(out, c.pages[0], npages, ps, func(p int, content []byte) error {
			got = append(got, p)
			if !bytes.Equal(content, bytes.Repeat([]byte{byte(p)}, ps)) {
				t.Errorf("request %d: page %d served as %x, want its content at the snapshot", i, p, content)
			}
			return nil
		})
		// ParseAnswer calls back with the pages read ahead first and the
		// page requested last.
		want := append(slices.Clone(c.pages[1:]), c.pages[0])
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("request %d: served %v (%v), want %v", i, got, err, want)
		}
		if m.served[1]-served != len(out) {
			t.Errorf("request %d: %d bytes counted, %d served", i, m.served[1]-served, len(out))
		}
		for _, p := range got {
			if _, ok := m.lacks[1][p]; ok {
				t.Errorf("request %d: page %d still lacked once served", i, p)
			}
		}
	}
	if len(m.lacks[1]) != 0 || len(m.nlack) != 0 || len(m.snap) != 0 {
		t.Errorf("every page served: lacks %v, counts %v, %d snapshots left; want none", m.lacks[1], m.nlack, len(m.snap))
	}
	if got := m.learned["R"][1]; len(got) != 7 {
		t.Errorf("learned after R: %v, want its 7 pages", got)
	}
	if got := m.learned["S"][1]; len(got) != pager.MaxPages+5 {
		t.Errorf("learned after S: %d pages, want %d", len(got), pager.MaxPages+5)
	}
}

// seq returns lo, lo+1, ..., hi-1.
func seq(lo, hi int) []int {
	var s []int
	for p := lo; p < hi; p++ {
		s = append(s, p)
	}
	return s
}
