package wire

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// testLimits is what the tests' receiver knows: an arena of 16 KiB, a loop
// of 1000 iterations, a live set {0, 1, 3, 4, 7} that nodes may join from
// rank 8 on (two of them), images with 4 bytes of variables.
func testLimits() *Limits {
	const extent = 1 << 14
	return &Limits{Delta: delta.Limits{MaxBytes: extent, MaxRuns: extent/2 + 1, ArenaSize: extent},
		Count: 1000, Prev: []int{0, 1, 3, 4, 7}, First: 8, Joiners: 2, ImageVars: 4,
		Pages: extent / 64, PageSize: 64, Nodes: 8}
}

func testEnvelope(t testing.TB, c delta.Compression) []byte {
	d := &delta.Delta{}
	d.Reset(7, 1)
	delta.AppendFull(d, 100, []byte("node 1 wrote this"))
	delta.AppendFull(d, 4000, bytes.Repeat([]byte{9}, 300))
	p, err := AppendEnvelope(nil, d, Pack(func(b []byte) []byte { return b }, [][]byte{{1, 2}, nil, {3}}), c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// withExtent is p after the extent a slave's delta message starts with.
func withExtent(pages int, p ...byte) []byte { return append(AppendExtent(nil, pages), p...) }

// TestDecodeTable checks every kind's decoder on payloads it must accept
// (each re-encodes to the same bytes and gives the value expected) and on
// payloads it must refuse.
func TestDecodeTable(t *testing.T) {
	lim := testLimits()
	env := testEnvelope(t, delta.None)
	for _, c := range []struct {
		conn Conn
		kind uint8
		p    []byte
		want Payload // nil: refused; for envelopes and delta messages, only acceptance is checked
	}{
		{JobConn, Delta, withExtent(7, env...), DeltaMsg{}},
		{JobConn, Merged, env, Envelope{}},
		{JobConn, Delta, env, nil}, // no extent before the envelope
		{JobConn, Delta, withExtent(7, env[:len(env)-1]...), nil},
		{JobConn, Delta, []byte{1, 0, 0}, nil},
		{JobConn, Delta, withExtent(7, 200, 0, 0, 0, 1), nil},
		{JobConn, ChunkReq, nil, Empty{}},
		{JobConn, ChunkReq, []byte{0}, nil},
		{JobConn, Chunk, ChunkPayload(10, 20), Range{10, 20}},
		{JobConn, Chunk, ChunkPayload(1000, 1000), Range{1000, 1000}},
		{JobConn, Chunk, ChunkPayload(20, 10), nil},
		{JobConn, Chunk, ChunkPayload(0, 1001), nil},
		{JobConn, Chunk, ChunkPayload(0, 1)[:15], nil},
		{JobConn, Done, nil, Empty{}},
		{JobConn, Abort, []byte("node 2 failed"), Raw("node 2 failed")},
		{JobConn, Leave, nil, Raw(nil)},
		{JobConn, Live, LivePayload([]int{0, 3, 7}), LiveSet{0, 3, 7}},
		{JobConn, Live, LivePayload([]int{0, 1, 8, 9}), LiveSet{0, 1, 8, 9}},
		{JobConn, Live, LivePayload([]int{0, 10}), nil},
		{JobConn, Live, LivePayload([]int{1, 3}), nil},
		{JobConn, Live, LivePayload([]int{0, 7, 3}), nil},
		{JobConn, Live, LivePayload([]int{0, 2}), nil},
		{JobConn, Live, LivePayload(nil), nil},
		{JobConn, Live, []byte{1, 0, 0}, nil},
		{JobConn, Replay, AppendReplay(nil, ReplayPlan{Regions: 5}), ReplayPlan{Regions: 5}},
		{JobConn, Replay, AppendReplay(nil, ReplayPlan{Regions: 5, HasImage: true, ImageSeq: 3, Point: "main.go:9:2"}),
			ReplayPlan{5, true, 3, "main.go:9:2"}},
		{JobConn, Replay, AppendReplay(nil, ReplayPlan{Regions: 5, HasImage: true, ImageSeq: 3}), ReplayPlan{5, true, 3, ""}},
		{JobConn, Replay, make([]byte, 7), nil},
		{JobConn, Replay, make([]byte, 15), nil},
		{JobConn, Image, AppendImage(nil, ImageMsg{Seq: 4, Alloc: []byte{9}, Table: []byte{8, 7}, Vars: []byte{1, 2, 3, 4}, Memory: []byte{5, 6}}), ImageMsg{4, []byte{9}, []byte{8, 7}, []byte{1, 2, 3, 4}, []byte{5, 6}}},
		{JobConn, Image, AppendImage(nil, ImageMsg{Seq: 4, Vars: []byte{1, 2, 3, 4}}), ImageMsg{4, []byte{}, []byte{}, []byte{1, 2, 3, 4}, []byte{}}},
		{JobConn, Image, AppendImage(nil, ImageMsg{Seq: 4, Vars: []byte{1, 2, 3}}), nil},
		{JobConn, Join, JoinPayload(12), U64(12)},
		{JobConn, Join, make([]byte, 9), nil},
		{JobConn, LazyHello, LazyHelloPayload(true), Hello(true)},
		{JobConn, LazyHello, LazyHelloPayload(false), Hello(false)},
		{JobConn, LazyHello, []byte{2}, nil},
		{JobConn, LazyHello, []byte{1, 0}, nil},
		{JobConn, LazyInfo, LazyInfoPayload(true, 1), LazySetup{true, 1}},
		{JobConn, LazyInfo, LazyInfoPayload(true, 65535), LazySetup{true, 65535}},
		{JobConn, LazyInfo, LazyInfoPayload(false, 0), LazySetup{false, 0}},
		{JobConn, LazyInfo, []byte{1, 0, 0}, nil},
		{JobConn, LazyInfo, []byte{2, 1, 0}, nil},
		{JobConn, LazyInfo, []byte{1, 1, 0, 0}, nil},
		{JobConn, LazyInfo, nil, nil},
		{JobConn, StdinInfo, StdinInfoPayload(StdinStream, 4242), StdinSetup{StdinStream, 4242}},
		{JobConn, StdinInfo, StdinInfoPayload(StdinNone, 0), StdinSetup{StdinNone, 0}},
		{JobConn, StdinInfo, StdinInfoPayload(StdinStream, 0), StdinSetup{StdinStream, 0}},
		{JobConn, StdinInfo, []byte{2, 0, 0}, nil},
		{JobConn, StdinInfo, []byte{0, 0}, nil},
		{StdinConn, StdinData, []byte("input"), Raw("input")},
		{StdinConn, StdinEnd, U64Payload(1 << 40), U64(1 << 40)},
		{StdinConn, StdinAck, U64Payload(7), U64(7)},
		{StdinConn, StdinAck, make([]byte, 4), nil},
		{JobConn, 99, nil, nil},
		{StdinConn, Live, LivePayload([]int{0}), nil},
	} {
		name := Name(c.kind)
		if c.conn == StdinConn {
			if ki, ok := Lookup(c.conn, c.kind); ok {
				name = ki.Name
			}
		}
		v, err := Decode(c.conn, c.kind, c.p, lim)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s %x: accepted as %#v", name, c.p, v)
			} else if !strings.Contains(err.Error(), "kind") && !strings.HasPrefix(err.Error(), name+" message: ") {
				t.Errorf("%s %x: error %q does not name the kind", name, c.p, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %x: %v", name, c.p, err)
			continue
		}
		_, env := c.want.(Envelope)
		if _, dm := c.want.(DeltaMsg); !env && !dm && !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s %x: decoded %#v, want %#v", name, c.p, v, c.want)
		}
		again, err := v.Append(nil)
		if err != nil || !bytes.Equal(again, c.p) {
			t.Errorf("%s %x: re-encodes as %x, %v", name, c.p, again, err)
		}
	}
}

// TestEnvelopeRoundTrip checks the envelope both ways, compressed or not,
// by value and by reference (OutEnvelope's pieces joined are
// AppendEnvelope's bytes), and the label check.
func TestEnvelopeRoundTrip(t *testing.T) {
	lim := testLimits().Delta
	var out OutEnvelope
	for _, c := range []delta.Compression{delta.None, delta.S2, delta.Zstd} {
		p := testEnvelope(t, c)
		vals, d, err := OpenEnvelope(p, lim)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		pieces, err := Unpack(vals, 3)
		if err != nil || !bytes.Equal(pieces[0], []byte{1, 2}) || len(pieces[1]) != 0 || !bytes.Equal(pieces[2], []byte{3}) {
			t.Fatalf("%v: values %x: %x, %v", c, vals, pieces, err)
		}
		if err := CheckLabel(d, 7, 1); err != nil {
			t.Errorf("%v: %v", c, err)
		}
		if err := CheckLabel(d, 7, 2); err == nil {
			t.Errorf("%v: a delta of node 1 passed for node 2's", c)
		}
		bufs, err := out.Build(d, vals, c)
		if err != nil {
			t.Fatal(err)
		}
		if joined := bytes.Join(bufs, nil); !bytes.Equal(joined, p) {
			t.Errorf("%v: Build's pieces differ from AppendEnvelope's bytes", c)
		}
		if out.Len() != len(p) {
			t.Errorf("%v: Len %d, want the envelope's %d bytes", c, out.Len(), len(p))
		}
	}
}

// TestOpenLabelled checks that an envelope opens only for the region and
// node its delta is labelled with, and only whole, with no values on an
// error.
func TestOpenLabelled(t *testing.T) {
	lim := testLimits().Delta
	p := testEnvelope(t, delta.None)
	tests := []struct {
		name    string
		p       []byte
		seq     uint64
		node    int
		wantErr string
	}{
		{"its label", p, 7, 1, ""},
		{"another node", p, 7, 2, "labelled region #7 node 1"},
		{"another region", p, 8, 1, "labelled region #7 node 1"},
		{"merged", p, 7, delta.Merged, "labelled region #7 node 1"},
		{"truncated", p[:len(p)-1], 7, 1, ""},
		{"too short", p[:3], 7, 1, "too short"},
	}
	for _, tt := range tests {
		var d delta.Delta
		vals, err := OpenLabelled(tt.p, &d, lim, tt.seq, tt.node)
		if tt.name == "its label" {
			if err != nil || len(vals) == 0 || d.Len() != len("node 1 wrote this")+300 {
				t.Errorf("%s: %d value bytes, %d data bytes, %v", tt.name, len(vals), d.Len(), err)
			}
			continue
		}
		if err == nil || vals != nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: values %x, error %v, want nil and %q", tt.name, vals, err, tt.wantErr)
		}
	}
}

func TestUnpackValues(t *testing.T) {
	id := func(b []byte) []byte { return b }
	list := Pack(id, [][]byte{{1}, {2, 2}, []byte("printed")})
	if got := PackValues(id, [][]byte{{1}, {2, 2}}, []byte("printed")); !bytes.Equal(got, list) {
		t.Errorf("PackValues with output = %x, want %x", got, list)
	}
	if got, want := PackValues(id, [][]byte{{1}, {2, 2}}, nil), list[:len(list)-len("printed")-4]; !bytes.Equal(got, want) {
		t.Errorf("PackValues without output = %x, want %x", got, want)
	}
	for _, c := range []struct {
		n       int
		vals    int
		out     string
		refused bool
	}{
		{3, 3, "", false},
		{2, 2, "printed", false},
		{1, 0, "", true},
		{4, 0, "", true},
	} {
		vals, out, err := UnpackValues(list, c.n)
		if c.refused != (err != nil) || len(vals) != c.vals || string(out) != c.out {
			t.Errorf("UnpackValues(n %d) = %d values, output %q, %v", c.n, len(vals), out, err)
		}
	}
	// With no values registered: an empty list, or the output alone, is
	// taken; a malformed list is refused all the same.
	for _, c := range []struct {
		list    []byte
		out     string
		refused bool
	}{{nil, "", false}, {Pack(id, [][]byte{[]byte("out")}), "out", false}, {[]byte{1, 2}, "", true}, {[]byte{9, 0, 0, 0, 1}, "", true}} {
		vals, out, err := UnpackValues(c.list, 0)
		if c.refused != (err != nil) || len(vals) != 0 || string(out) != c.out {
			t.Errorf("UnpackValues(%x, 0) = %d values, output %q, %v", c.list, len(vals), out, err)
		}
	}
	if _, err := Unpack(list[:len(list)-1], 3); err == nil {
		t.Error("a truncated list was accepted")
	}
	if _, err := Unpack([]byte{1, 0}, 1); err == nil {
		t.Error("a list shorter than a length was accepted")
	}
}

// TestChecks checks the receivers' checks: a message of another kind or
// region is refused, and the master takes a chunk request only during a
// dynamic loop.
func TestChecks(t *testing.T) {
	for _, c := range []struct {
		msg  transport.Message
		want uint8
		ok   bool
	}{
		{transport.Message{Kind: Merged, Seq: 3}, Merged, true},
		{transport.Message{Kind: Merged, Seq: 2}, Merged, false},
		{transport.Message{Kind: Chunk, Seq: 3}, Merged, false},
		{transport.Message{Kind: 99, Seq: 3}, Merged, false},
	} {
		if err := FromMaster(c.msg, c.want, 3); (err == nil) != c.ok {
			t.Errorf("FromMaster(%v, %s) = %v", c.msg, Name(c.want), err)
		}
	}
	for _, c := range []struct {
		kind    uint8
		seq     uint64
		dynamic bool
		ok      bool
	}{
		{Delta, 3, false, true}, {Delta, 3, true, true}, {ChunkReq, 3, true, true},
		{ChunkReq, 3, false, false}, {Delta, 4, false, false}, {Merged, 3, true, false},
		{Notice, 3, false, false}, // the commit kind of another transfer
	} {
		err := FromSlave(transport.Message{Kind: c.kind, Seq: c.seq}, 1, 3, c.dynamic, Delta)
		if (err == nil) != c.ok {
			t.Errorf("FromSlave(%s, #%d, dynamic %v) = %v", Name(c.kind), c.seq, c.dynamic, err)
		}
	}
	if err := FromSlave(transport.Message{Kind: Notice, Seq: 3}, 1, 3, false, Notice); err != nil {
		t.Errorf("a notice under distributed homes: %v", err)
	}
	if err := FromSlave(transport.Message{Kind: Delta, Seq: 3}, 1, 3, false, Notice); err == nil {
		t.Errorf("a delta under distributed homes was accepted")
	}
}

// TestParseLiveJoined checks the live set that admits nodes joining the
// running job: ranks from the job's size on may appear, in order; without
// joining ranks allowed, they are refused as before.
func TestParseLiveJoined(t *testing.T) {
	const joiners = 64
	prev := []int{0, 1}
	for _, c := range []struct {
		live  []int
		first int
		ok    bool
	}{
		{[]int{0, 1, 2}, 2, true},
		{[]int{0, 3}, 2, true},
		{[]int{0, 1, 2}, 0, false},
		{[]int{0, 2, 2}, 2, false},
		{[]int{0, 3, 2}, 2, false},
		{[]int{0, 2 + joiners}, 2, false},
		{[]int{1, 2}, 2, false},
	} {
		got, err := ParseLive(LivePayload(c.live), prev, c.first, joiners)
		if (err == nil) != c.ok || err == nil && !slices.Equal(got, c.live) {
			t.Errorf("ParseLive(%v, %v, %d) = %v, %v; want ok %v", c.live, prev, c.first, got, err, c.ok)
		}
	}
}

// TestStdinInfoBytes checks the stdinInfo payload to the byte, both ways,
// and its refusals' messages.
func TestStdinInfoBytes(t *testing.T) {
	for _, tc := range []struct {
		mode  uint8
		port  int
		bytes []byte
	}{
		{StdinNone, 0, []byte{0, 0, 0}},
		{StdinStream, 0, []byte{1, 0, 0}},
		{StdinStream, 12345, []byte{1, 0x39, 0x30}},
		{StdinStream, 65535, []byte{1, 0xff, 0xff}},
	} {
		b := StdinInfoPayload(tc.mode, tc.port)
		if !bytes.Equal(b, tc.bytes) {
			t.Errorf("StdinInfoPayload(%d, %d) = %v, want %v", tc.mode, tc.port, b, tc.bytes)
		}
		mode, port, err := ParseStdinInfo(b)
		if err != nil || mode != tc.mode || port != tc.port {
			t.Errorf("ParseStdinInfo(%v) = %d, %d, %v; want %d, %d", b, mode, port, err, tc.mode, tc.port)
		}
	}
	for _, tc := range []struct {
		p    []byte
		want string
	}{
		{nil, "standard input information of 0 bytes, mode []"},
		{[]byte{1, 0}, "standard input information of 2 bytes, mode [1 0]"},
		{[]byte{1, 0, 0, 0}, "standard input information of 4 bytes, mode [1 0 0 0]"},
		{[]byte{2, 0, 0}, "standard input information of 3 bytes, mode [2 0 0]"},
	} {
		if _, _, err := ParseStdinInfo(tc.p); err == nil || err.Error() != tc.want {
			t.Errorf("ParseStdinInfo(%v) = %v, want %q", tc.p, err, tc.want)
		}
	}
}

// TestImage checks the image message's round trip and refusals, for any
// length of the point's variables (moved from durable, which parsed it).
func TestImage(t *testing.T) {
	in := ImageMsg{Seq: 9, Alloc: []byte("state"), Table: []byte("table"), Vars: []byte{1, 2, 3}, Memory: []byte("arena bytes")}
	b := AppendImage(nil, in)
	m, err := ParseImage(b, 3)
	if err != nil || m.Seq != 9 || !bytes.Equal(m.Alloc, in.Alloc) || !bytes.Equal(m.Table, in.Table) ||
		!bytes.Equal(m.Vars, in.Vars) || !bytes.Equal(m.Memory, in.Memory) {
		t.Fatalf("round trip: %+v, %v", m, err)
	}
	for _, c := range []struct {
		b  []byte
		nv int
	}{{b[:7], 0}, {b[:10], 3}, {b[:20], 0}, {b[:34], 3}, {b, len(b)}} {
		if _, err := ParseImage(c.b, c.nv); !errors.Is(err, ErrImageShort) {
			t.Fatalf("%d bytes with %d of variables: %v", len(c.b), c.nv, err)
		}
	}
}
