package wire

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/cape-go/cape/delta"
)

// FuzzDecode feeds any payload, as any kind of either connection, to the
// kinds table's decoders, as a peer that holds the token could send it:
// no panic; a payload is refused, or its value re-encodes to the same
// bytes. An envelope's delta may come compressed or in a non-canonical
// form, so an accepted envelope must re-encode (uncompressed) to bytes that
// decode to the same values and runs and re-encode identically, and its
// delta must apply to the receiver's arena.
func FuzzDecode(f *testing.F) {
	f.Add(uint8(JobConn), Delta, withExtent(3, testEnvelope(f, delta.None)...))
	f.Add(uint8(JobConn), Merged, testEnvelope(f, delta.S2))
	f.Add(uint8(JobConn), Chunk, ChunkPayload(10, 20))
	f.Add(uint8(JobConn), Live, LivePayload([]int{0, 3, 8}))
	f.Add(uint8(JobConn), Replay, AppendReplay(nil, ReplayPlan{Regions: 5, HasImage: true, ImageSeq: 3, Point: "p"}))
	f.Add(uint8(JobConn), Image, AppendImage(nil, ImageMsg{Seq: 4, Alloc: []byte{9}, Vars: []byte{1, 2, 3, 4}, Memory: []byte{5}}))
	f.Add(uint8(JobConn), LazyInfo, LazyInfoPayload(true, 80))
	f.Add(uint8(JobConn), StdinInfo, StdinInfoPayload(StdinStream, 0))
	f.Add(uint8(StdinConn), StdinEnd, U64Payload(12))
	for kind, p := range testHomesPayloads(f) {
		f.Add(uint8(JobConn), kind, p)
	}
	lim := testLimits()
	f.Fuzz(func(t *testing.T, conn, kind uint8, p []byte) {
		c := Conn(conn % 2)
		v, err := Decode(c, kind, p, lim)
		if err != nil {
			if v != nil {
				t.Fatalf("kind %d: a value with an error", kind)
			}
			return
		}
		again, err := v.Append(nil)
		if err != nil {
			t.Fatalf("kind %d: re-encoding %x: %v", kind, p, err)
		}
		if live, ok := v.(LiveSet); ok {
			checkLive(t, live, lim)
		}
		if head, env, ok := splitEnvelope(t, v); ok {
			// The part before the envelope re-encodes as received.
			if !bytes.HasPrefix(p, head) || !bytes.HasPrefix(again, head) {
				t.Fatalf("kind %d: %x decoded as %#v, whose head re-encodes as %x", kind, p, v, head)
			}
			checkEnvelope(t, env, again[len(head):], lim)
			return
		}
		env, isEnv := v.(Envelope)
		if !isEnv {
			if !bytes.Equal(again, p) {
				t.Fatalf("kind %d: %x decoded as %#v, which re-encodes as %x", kind, p, v, again)
			}
			return
		}
		checkEnvelope(t, env, again, lim)
	})
}

// checkLive checks an accepted live set: ascending, the master first,
// every rank live before or one a joining node may hold.
func checkLive(t *testing.T, live LiveSet, lim *Limits) {
	t.Helper()
	if len(live) == 0 || live[0] != 0 {
		t.Fatalf("accepted live set %v without the master", live)
	}
	for i, r := range live {
		if i > 0 && r <= live[i-1] {
			t.Fatalf("accepted live set %v, not ascending", live)
		}
		joined := lim.First > 0 && r >= lim.First && r < lim.First+lim.Joiners
		if !joined && !slices.Contains(lim.Prev, r) {
			t.Fatalf("accepted live set %v naming node %d, neither live before (%v) nor joining", live, r, lim.Prev)
		}
	}
}

// checkEnvelope checks an accepted envelope env, re-encoded as again.
func checkEnvelope(t *testing.T, env Envelope, again []byte, lim *Limits) {
	t.Helper()
	if err := env.Delta.Apply(make([]byte, lim.Delta.ArenaSize)); err != nil {
		t.Fatalf("accepted a delta that does not apply to the arena: %v", err)
	}
	vals, d, err := OpenEnvelope(again, lim.Delta)
	if err != nil {
		t.Fatalf("an accepted envelope, re-encoded, is refused: %v", err)
	}
	if !bytes.Equal(vals, env.Values) || d.Region != env.Delta.Region || d.Node != env.Delta.Node ||
		len(d.Runs) != len(env.Delta.Runs) {
		t.Fatalf("an accepted envelope changed in re-encoding")
	}
	for i, r := range d.Runs {
		if r.Off != env.Delta.Runs[i].Off || !bytes.Equal(r.Data, env.Delta.Runs[i].Data) {
			t.Fatalf("run %d changed in re-encoding", i)
		}
	}
	third, err := Envelope{vals, d}.Append(nil)
	if err != nil || !bytes.Equal(third, again) {
		t.Fatalf("an envelope's encoding is not stable: %v", err)
	}
}

// FuzzUnpack checks the values list codec: Unpack never panics, and what
// it accepts is exactly n pieces that pack back to the input.
func FuzzUnpack(f *testing.F) {
	f.Add([]byte{3, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0}, 2)
	f.Add([]byte{255, 255, 255, 255}, 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		n = int(uint(n) % 8)
		pieces, err := Unpack(b, n)
		if err != nil {
			return
		}
		if len(pieces) != n {
			t.Fatalf("%d pieces, want %d", len(pieces), n)
		}
		var out []byte
		for _, p := range pieces {
			out = binary.LittleEndian.AppendUint32(out, uint32(len(p)))
			out = append(out, p...)
		}
		if !bytes.Equal(out, b) || !bytes.Equal(Pack(func(b []byte) []byte { return b }, pieces), b) {
			t.Fatalf("Unpack(%x) = %x, packs back to %x", b, pieces, out)
		}
	})
}

// FuzzImage checks that an image message a slave parses, with any length
// of the point's variables, either is refused or re-encodes to the bytes
// received (moved from durable, which parsed it).
func FuzzImage(f *testing.F) {
	f.Add(AppendImage(nil, ImageMsg{Seq: 2, Alloc: []byte{7, 8}, Table: []byte{6}, Vars: []byte{1, 2}, Memory: []byte{3}}), 2)
	f.Add([]byte{1, 2, 3}, -1)
	f.Fuzz(func(t *testing.T, b []byte, varsLen int) {
		if varsLen < 0 {
			return
		}
		if m, err := ParseImage(b, varsLen); err == nil {
			if len(m.Vars) != varsLen || !bytes.Equal(AppendImage(nil, m), b) {
				t.Fatalf("image message %x with %d bytes of variables: %+v", b, varsLen, m)
			}
		}
	})
}
