package wire

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/cape-go/cape/delta"
)

// testHomesPayloads returns a valid payload of each homes kind under
// testLimits (64-byte pages).
func testHomesPayloads(t testing.TB) map[uint8][]byte {
	d := &delta.Delta{}
	d.Reset(7, 1)
	delta.AppendFull(d, 64*3+5, []byte("edge"))
	d.Runs = append(d.Runs, delta.Run{Off: 64*9 + 60, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}})
	env, err := AppendEnvelope(nil, d, []byte{1, 0, 0, 0, 42}, delta.None)
	if err != nil {
		t.Fatal(err)
	}
	entry := func(p int) []byte { return bytes.Repeat([]byte{byte(p)}, 64) }
	shared := append(AppendShared(nil, []int{3, 9, 10}, entry), env...)
	pushes := []Push{{Page: 40, Readers: []int{0, 2}, Data: entry(40)}, {Page: 41, Readers: []int{7}, Data: entry(41)}}
	notice := AppendPushes(AppendNoticeHead(nil, 256, []PageRange{{0, 4}, {9, 11}, {40, 42}}), pushes)
	release := AppendPagePushes(AppendHomes(nil, []Home{{PageRange{0, 4}, 1, false}, {PageRange{4, 5}, 0, true}, {PageRange{9, 12}, 7, false}}), pushes)
	return map[uint8][]byte{
		Notice:  append(notice, shared...),
		Runs:    shared,
		Collect: AppendPageList(nil, []int{2, 5, 255}),
		Release: append(release, env...),
	}
}

// splitEnvelope returns, for a decoded payload that ends in an envelope,
// the encoding of what comes before it and the envelope.
func splitEnvelope(t *testing.T, v Payload) (head []byte, env Envelope, ok bool) {
	t.Helper()
	switch m := v.(type) {
	case NoticeMsg:
		head = AppendPushes(AppendNoticeHead(nil, m.Extent, m.Written), m.Pushes)
		return append(AppendPageList(head, m.Shared.Pages), m.Shared.Entries...), m.Shared.Env, true
	case SharedMsg:
		return append(AppendPageList(nil, m.Pages), m.Entries...), m.Env, true
	case DeltaMsg:
		return AppendExtent(nil, m.Extent), m.Env, true
	case ReleaseMsg:
		return AppendPagePushes(AppendHomes(nil, m.Homes), m.Pushes), m.Env, true
	}
	return nil, Envelope{}, false
}

func TestHomesPayloadsRoundTrip(t *testing.T) {
	lim := testLimits()
	for kind, p := range testHomesPayloads(t) {
		v, err := Decode(JobConn, kind, p, lim)
		if err != nil {
			t.Fatalf("%s: %v", Name(kind), err)
		}
		again, err := v.Append(nil)
		if err != nil || !bytes.Equal(again, p) {
			t.Fatalf("%s: re-encodes as %x, want %x (%v)", Name(kind), again, p, err)
		}
	}
	v, _ := Decode(JobConn, Release, testHomesPayloads(t)[Release], lim)
	rel := v.(ReleaseMsg)
	if h := rel.Homes[1]; h.Holder != 0 || !h.Multi || h.Lo != 4 || h.Hi != 5 {
		t.Fatalf("home 1 decoded as %+v", h)
	}
	v, _ = Decode(JobConn, Notice, testHomesPayloads(t)[Notice], lim)
	if len(rel.Pushes) != 2 || rel.Pushes[1].Page != 41 || rel.Pushes[1].Data[0] != 41 || rel.Pushes[0].Readers != nil {
		t.Fatalf("release pushes decoded as %+v", rel.Pushes)
	}
	nm := v.(NoticeMsg)
	if !slices.Equal(nm.Shared.Pages, []int{3, 9, 10}) || nm.Shared.Entries[64] != 9 || len(nm.Written) != 3 || nm.Extent != 256 ||
		len(nm.Pushes) != 2 || !slices.Equal(nm.Pushes[0].Readers, []int{0, 2}) {
		t.Fatalf("notice decoded as %+v", nm)
	}
}

func TestHomesPayloadsRefused(t *testing.T) {
	lim := testLimits()
	good := testHomesPayloads(t)
	d := &delta.Delta{}
	d.Reset(7, 1)
	delta.AppendFull(d, 64*4, []byte("not shared"))
	offPage, _ := AppendEnvelope(nil, d, nil, delta.None)
	cases := []struct {
		name string
		kind uint8
		p    []byte
		want string
	}{
		{"ranges out of order", Notice, append(AppendNoticeHead(nil, 256, []PageRange{{5, 6}, {2, 3}}), good[Runs]...), "out of order"},
		{"empty range", Notice, append(AppendNoticeHead(nil, 256, []PageRange{{5, 5}}), good[Runs]...), "empty"},
		{"range past the arena", Notice, append(AppendNoticeHead(nil, 256, []PageRange{{250, 257}}), good[Runs]...), "past"},
		{"push to no one", Notice, append(AppendPushes(AppendNoticeHead(nil, 256, nil), []Push{{Page: 1, Data: make([]byte, 64)}}), good[Runs]...), "no readers"},
		{"push to a node past the job", Notice, append(AppendPushes(AppendNoticeHead(nil, 256, nil), []Push{{Page: 1, Readers: []int{8}, Data: make([]byte, 64)}}), good[Runs]...), "of a 8-node job"},
		{"pushed pages out of order", Release, append(AppendPagePushes(AppendHomes(nil, nil), []Push{{Page: 2, Data: make([]byte, 64)}, {Page: 1, Data: make([]byte, 64)}}), offPage...), "out of order"},
		{"run off the shared pages", Runs, append(AppendShared(nil, []int{3}, func(int) []byte { return make([]byte, 64) }), offPage...), "not among the shared pages"},
		{"entry bytes missing", Runs, append(AppendPageList(nil, []int{1, 2}), 0, 0), "entry bytes"},
		{"holder past the job", Release, append(AppendHomes(nil, []Home{{PageRange{0, 1}, 8, false}}), offPage...), "no such node"},
		{"pages repeated", Collect, AppendPageList(nil, []int{3, 3}), "out of order"},
		{"bytes after the pages", Collect, append(AppendPageList(nil, []int{3}), 9), "after the pages"},
		{"count past the payload", Collect, []byte{200, 0, 0, 0, 1}, "than the payload holds"},
	}
	for _, c := range cases {
		_, err := Decode(JobConn, c.kind, c.p, lim)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// FuzzHomesSetup checks the homes set-up payloads a peer sends (a slave's
// capability and port, the master's server list): no panic, and what is
// accepted re-encodes to the bytes received.
func FuzzHomesSetup(f *testing.F) {
	f.Add(HomesHelloPayload(true, 4321), 3)
	f.Add(HomesInfoPayload(HomesInfo{On: true, Servers: []string{":80", "10.0.0.2:81", "h:82"}}), 3)
	f.Add(HomesInfoPayload(HomesInfo{On: true, SelfReplicas: true, Servers: []string{":80", "127.0.0.1:81"}}), 2)
	f.Fuzz(func(t *testing.T, p []byte, size int) {
		if ok, port, err := ParseHomesHello(p); err == nil && !bytes.Equal(HomesHelloPayload(ok, port), p) {
			t.Fatalf("hello %x read as %v %d", p, ok, port)
		}
		size = 1 + int(uint(size)%16)
		if i, err := ParseHomesInfo(p, size); err == nil {
			if len(i.Servers) != size || !bytes.Equal(HomesInfoPayload(i), p) || i.SelfReplicas && !i.On {
				t.Fatalf("info %x read as %+v", p, i)
			}
		}
	})
}
