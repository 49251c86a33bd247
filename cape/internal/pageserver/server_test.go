package pageserver

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/transport"
)

// TestServe starts node 1's server of a 3-node job, connects node 0's and
// node 2's helpers as pager does, and checks what it serves: the pages it
// holds as of the version asked for (waiting for a release not yet taken),
// read-ahead for a reader in order, and refusals naming what was wrong.
func TestServe(t *testing.T) {
	const ps, pages, job = 64, 16, 77
	token := []byte("0123456789abcdef0123456789abcdef")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Rank: 1, Size: 3, Job: job, Token: token, Listener: ln, PageSize: ps, Pages: pages})
	defer s.Close()
	arena := make([]byte, ps*pages)
	for i := range arena {
		arena[i] = byte(i / ps)
	}
	dial := func(rank int) *transport.Slave {
		tc := transport.Config{Token: token, JobID: pager.ServerJobID(job, 1), Size: 3, Broadcast: transport.BroadcastStar, MaxFrame: 1 << 20}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := transport.Dial(ctx, ln.Addr().String(), pager.ClientID(rank, 1, 3), tc)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c0, c2 := make(chan *transport.Slave), dial(2)
	go func() { c0 <- dial(0) }()
	h0 := <-c0
	ask := func(c *transport.Slave, v uint64, p int) transport.Message {
		t.Helper()
		if err := c.Send(transport.Message{Kind: pager.KindPageReq, Seq: v, Payload: pager.AppendRequest(nil, p)}); err != nil {
			t.Fatal(err)
		}
		m, err := c.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// A request for version 1 waits for the release of region 1.
	got := make(chan transport.Message)
	go func() { got <- ask(h0, 1, 4) }()
	time.Sleep(50 * time.Millisecond)
	s.Update(1, "a", []wire.Home{{PageRange: wire.PageRange{Lo: 3, Hi: 9}, Holder: 1}, {PageRange: wire.PageRange{Lo: 9, Hi: 10}, Holder: 2}}, arena)
	m := <-got
	if m.Kind != pager.KindPages || len(m.Payload) != 8+ps || !bytes.Equal(m.Payload[8:], arena[4*ps:5*ps]) {
		t.Fatalf("page 4: kind %d, %d bytes", m.Kind, len(m.Payload))
	}
	// In order: the next answer holds two pages.
	if m = ask(h0, 1, 5); len(m.Payload) != 2*(8+ps) {
		t.Fatalf("page 5 after 4: %d bytes, want two pages", len(m.Payload))
	}
	if s.Held() != 6 || s.TakeServed() != 3*(8+ps) {
		t.Fatalf("held %d pages", s.Held())
	}
	for _, c := range []struct {
		v    uint64
		p    int
		want string
	}{{1, 9, "does not hold"}, {0, 4, "it is at #1"}, {1, 99, "page request for page 99"}} {
		m := ask(c2, c.v, c.p)
		if m.Kind != pager.KindPageErr || !strings.Contains(string(m.Payload), c.want) {
			t.Errorf("page %d as of #%d: kind %d %q, want a refusal saying %q", c.p, c.v, m.Kind, m.Payload, c.want)
		}
	}
	// Node 0 fetched page 4, then 5 (the read-ahead page 6 is not
	// learned): they are pushed after region a's next instances when this
	// node writes them.
	pushes := s.Pushes("a", []wire.PageRange{{Lo: 5, Hi: 7}}, arena, nil)
	if len(pushes) != 1 || pushes[0].Page != 5 || len(pushes[0].Readers) != 1 || pushes[0].Readers[0] != 0 || pushes[0].Data[0] != 5 {
		t.Fatalf("pushes after region a: %+v", pushes)
	}
	if p := s.Pushes("b", []wire.PageRange{{Lo: 0, Hi: 16}}, arena, nil); len(p) != 0 {
		t.Fatalf("pushes after region b: %+v", p)
	}
	// A page written elsewhere is dropped; the content follows the arena.
	arena[3*ps] = 42
	s.Update(2, "a", []wire.Home{{PageRange: wire.PageRange{Lo: 3, Hi: 4}, Holder: 1}, {PageRange: wire.PageRange{Lo: 4, Hi: 5}, Holder: 0, Multi: true}}, arena)
	if m = ask(c2, 2, 3); m.Kind != pager.KindPages || m.Payload[8] != 42 {
		t.Fatalf("page 3 as of #2: kind %d", m.Kind)
	}
	if m = ask(c2, 2, 4); m.Kind != pager.KindPageErr {
		t.Fatalf("page 4, now held by the master, was served")
	}
}
