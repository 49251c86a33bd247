package transport

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// vecCases are payloads given in pieces: none, empty pieces, small pieces
// gathered into one chunk, pieces sent by reference, pieces larger than a
// chunk, and small pieces that fill several chunks.
func vecCases() [][][]byte {
	p := func(n int, seed byte) []byte { return payload(n, seed) }
	var many [][]byte
	for i := range 3000 {
		many = append(many, p(100+i%50, byte(i)))
	}
	return [][][]byte{
		nil,
		{{}, {}},
		{p(3, 1), p(52, 2), p(4, 3)},
		{p(10, 1), p(minRefPiece, 2), p(7, 3), p(minRefPiece+1, 4), p(1, 5)},
		{p(2*chunkLen+17, 6), p(9, 7)},
		many,
		append([][]byte{p(3*minRefPiece, 8)}, many[:700]...),
	}
}

// TestWriteVecFramesLikeWriteMessage checks that a message written in pieces
// reads back as the concatenation, under the same verification as any
// message, and that the pieces were not modified.
func TestWriteVecFramesLikeWriteMessage(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	wm, _ := newMacer(key)
	rm, _ := newMacer(key)
	var b bufConn
	fw := frameWriter{w: &b, timeout: time.Second, mac: wm}
	fr := newFrameReader(&b, rm, 1<<30, nil)
	for i, bufs := range vecCases() {
		want := slices.Concat(bufs...)
		keep := slices.Clone(want)
		if err := fw.writeVec(16, uint64(i), bufs, len(want)); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		kind, seq, got, err := fr.readMessage()
		if err != nil {
			t.Fatalf("case %d: read: %v", i, err)
		}
		if kind != 16 || seq != uint64(i) || !bytes.Equal(got, want) {
			t.Fatalf("case %d: read kind %d seq %d, %d bytes; want %d bytes", i, kind, seq, len(got), len(want))
		}
		if !bytes.Equal(slices.Concat(bufs...), keep) {
			t.Fatalf("case %d: writeVec modified the pieces", i)
		}
		if b.Len() != 0 {
			t.Fatalf("case %d: %d bytes left after the message", i, b.Len())
		}
	}
}

// TestWriteVecAllocatesNothing checks that the vectored write path,
// once its buffers have grown, allocates nothing per message.
func TestWriteVecAllocatesNothing(t *testing.T) {
	wm, _ := newMacer(bytes.Repeat([]byte{7}, 32))
	var b bufConn
	b.Grow(8 << 20)
	fw := frameWriter{w: &b, timeout: time.Second, mac: wm}
	for i, bufs := range vecCases() {
		n := payloadLen(bufs)
		write := func() {
			b.Reset()
			if err := fw.writeVec(16, 1, bufs, n); err != nil {
				t.Fatal(err)
			}
		}
		write()
		if a := testing.AllocsPerRun(20, write); a != 0 {
			t.Errorf("case %d: a vectored message of %d bytes in %d pieces allocates %v times, want 0", i, n, len(bufs), a)
		}
	}
}

// TestSendBuffers sends pieces both ways over a job and checks the limits.
func TestSendBuffers(t *testing.T) {
	cfg := testConfig(3)
	cfg.KindLimits = map[uint8]int{17: 100}
	m, slaves := startJob(t, cfg, nil)
	for i, bufs := range vecCases() {
		want := slices.Concat(bufs...)
		if err := m.SendBuffers(2, 16, uint64(i), bufs); err != nil {
			t.Fatalf("case %d: master: %v", i, err)
		}
		msg, err := slaves[2].Recv()
		if err != nil || msg.Kind != 16 || msg.Seq != uint64(i) || !bytes.Equal(msg.Payload, want) {
			t.Fatalf("case %d: slave received kind %d seq %d, %d bytes, err %v; want %d bytes", i, msg.Kind, msg.Seq, len(msg.Payload), err, len(want))
		}
		if err := slaves[1].SendBuffers(16, uint64(i), bufs); err != nil {
			t.Fatalf("case %d: slave: %v", i, err)
		}
		msg, err = m.Recv(1)
		if err != nil || !bytes.Equal(msg.Payload, want) {
			t.Fatalf("case %d: master received %d bytes, err %v; want %d bytes", i, len(msg.Payload), err, len(want))
		}
	}
	if err := m.SendBuffers(1, 3, 0, nil); err == nil {
		t.Error("SendBuffers of a reserved kind succeeded")
	}
	if err := slaves[1].SendBuffers(17, 0, [][]byte{make([]byte, 60), make([]byte, 60)}); err == nil {
		t.Error("SendBuffers beyond the kind's limit succeeded")
	}
	if err := m.SendBuffers(3, 16, 0, nil); err == nil {
		t.Error("SendBuffers to a rank out of range succeeded")
	}
}

// TestReleaseReusesPayloads checks that a payload given back is the memory
// of a later message that fits it, on both sides, and that GatherInto
// fills the table it is given.
func TestReleaseReusesPayloads(t *testing.T) {
	m, slaves := startJob(t, testConfig(2), nil)
	s := slaves[1]
	if err := m.Send(1, Message{Kind: 16, Payload: payload(5000, 1)}); err != nil {
		t.Fatal(err)
	}
	first, err := s.Recv()
	if err != nil {
		t.Fatal(err)
	}
	s.Release(first.Payload)
	for i, n := range []int{4000, 5000} {
		if err := m.Send(1, Message{Kind: 16, Payload: payload(n, byte(i))}); err != nil {
			t.Fatal(err)
		}
		msg, err := s.Recv()
		if err != nil || !bytes.Equal(msg.Payload, payload(n, byte(i))) {
			t.Fatalf("message %d: %d bytes, err %v", i, len(msg.Payload), err)
		}
		if reused := &msg.Payload[0] == &first.Payload[:1][0]; reused != (i == 0) {
			t.Fatalf("message %d of %d bytes: released memory reused: %v", i, n, reused)
		}
	}
	var table []Message
	for i := range 2 {
		if err := s.Send(Message{Kind: 17, Seq: uint64(i), Payload: payload(100, 3)}); err != nil {
			t.Fatal(err)
		}
		got, err := m.GatherInto(table)
		if err != nil || len(got) != 2 || got[1].Kind != 17 || got[1].Seq != uint64(i) {
			t.Fatalf("gather %d: %v, %v", i, got, err)
		}
		if i == 1 && &got[0] != &table[0] {
			t.Fatal("GatherInto did not fill the table it was given")
		}
		m.Release(1, got[1].Payload)
		table = got
	}
}
