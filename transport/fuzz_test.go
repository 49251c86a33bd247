package transport

import (
	"bytes"
	"testing"
)

func FuzzParseHeader(f *testing.F) {
	for _, h := range []header{
		{kind: 16, flags: flagFin, chunk: 10, seq: 3, total: 10},
		{kind: kindHeartbeat, flags: flagFin},
		{kind: 200, chunk: maxChunkLen, seq: 1, total: 1 << 30},
	} {
		var b [headerLen]byte
		h.put(&b)
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const maxFrame = 1 << 24
		h, err := parseHeader(b, maxFrame)
		if err != nil {
			return
		}
		if h.total > maxFrame || h.chunk > maxChunkLen || uint64(h.chunk) > h.total {
			t.Fatalf("accepted %+v", h)
		}
		var enc [headerLen]byte
		h.put(&enc)
		if !bytes.Equal(enc[:], b[:headerLen]) {
			t.Fatalf("round trip: %x != %x", enc, b[:headerLen])
		}
	})
}

func FuzzDecodeHandshake(f *testing.F) {
	for _, m := range []hsMsg{
		{typ: hsHello, rank: 3, size: 8, jobID: 99},
		{typ: hsChallenge},
		{typ: hsProof},
		{typ: hsResult, status: statusAuth},
	} {
		f.Add(appendHandshake(nil, &m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeHandshake(b)
		if err == nil {
			if enc := appendHandshake(nil, &m); !bytes.Equal(enc, b) {
				t.Fatalf("round trip: %x != %x", enc, b)
			}
		}
		readHandshake(bytes.NewReader(b))
	})
}

// FuzzReadMessage feeds arbitrary streams to the frame reader under a known
// key: it must never panic nor return an unverified or oversized payload.
func FuzzReadMessage(f *testing.F) {
	f.Add(encodeFrames(f, Message{Kind: 16, Seq: 1, Payload: []byte("hello")}, Message{Kind: kindHeartbeat}))
	f.Add(encodeFrames(f, Message{Kind: 16, Seq: 2, Payload: payload(3000, 1)}))
	f.Add(encodeFrames(f, Message{Kind: 17, Seq: 3, Payload: payload(65, 2)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		const maxFrame = 1 << 16
		fr := newFrameReader(bytes.NewReader(b), testMacer(t), maxFrame, map[uint8]int{17: 64})
		for range 8 {
			kind, _, p, err := fr.readMessage()
			if err != nil {
				return
			}
			if len(p) > maxFrame || uint64(len(p)) > fr.limit(kind) {
				t.Fatalf("payload of kind %d of %d bytes", kind, len(p))
			}
		}
	})
}
