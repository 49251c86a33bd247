package transport

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

var testKey = bytes.Repeat([]byte{7}, 32)

func testMacer(t testing.TB) *macer {
	m, err := newMacer(testKey)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// encodeFrames returns the frames of the given messages under testKey.
func encodeFrames(t testing.TB, msgs ...Message) []byte {
	var b bufConn
	fw := frameWriter{w: &b, mac: testMacer(t)}
	for _, m := range msgs {
		if err := fw.writeMessage(m.Kind, m.Seq, m.Payload); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestFrameRoundTrip(t *testing.T) {
	old := chunkLen
	chunkLen = 1000
	defer func() { chunkLen = old }()
	msgs := []Message{
		{Kind: 16, Seq: 1, Payload: payload(2500, 1)}, // 3 chunks
		{Kind: kindHeartbeat},
		{Kind: 255, Seq: 1<<64 - 1},
		{Kind: 17, Seq: 2, Payload: payload(1000, 2)}, // exactly one chunk
	}
	fr := newFrameReader(bytes.NewReader(encodeFrames(t, msgs...)), testMacer(t), 1<<20, nil)
	for i, want := range msgs {
		kind, seq, p, err := fr.readMessage()
		if err != nil || kind != want.Kind || seq != want.Seq || !bytes.Equal(p, want.Payload) {
			t.Fatalf("message %d: kind %d seq %d len %d err %v", i, kind, seq, len(p), err)
		}
	}
	if _, _, _, err := fr.readMessage(); err != io.EOF {
		t.Fatalf("at the end: %v, want EOF", err)
	}
	// Truncated in the middle of a message: unexpected EOF.
	f := encodeFrames(t, msgs[0])
	fr = newFrameReader(bytes.NewReader(f[:len(f)-1200]), testMacer(t), 1<<20, nil)
	if _, _, _, err := fr.readMessage(); err != io.ErrUnexpectedEOF {
		t.Fatalf("truncated: %v", err)
	}
}

// TestFrameTooLargeNoAllocation checks that a header declaring a message
// over MaxFrame is rejected before the payload is allocated, both when it
// authenticates (a peer with a larger MaxFrame) and when it does not.
func TestFrameTooLargeNoAllocation(t *testing.T) {
	const maxFrame = 1 << 30
	authentic := func() []byte {
		var hdr [headerLen]byte
		h := header{kind: 16, flags: 0, chunk: maxChunkLen, total: maxFrame + 1}
		h.put(&hdr)
		var tag [tagLen]byte
		testMacer(t).sum(&tag, hdr[:])
		return append(append(hdr[:], tag[:]...), make([]byte, 4096)...)
	}()
	forged := bytes.Clone(authentic)
	forged[16] = 0x7f // total ≈ 2^62, header tag now wrong

	for name, tc := range map[string]struct {
		in   []byte
		want error
	}{
		"authentic": {authentic, ErrFrameTooLarge},
		"forged":    {forged, ErrCorruptFrame},
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			fr := newFrameReader(bytes.NewReader(tc.in), testMacer(t), maxFrame, nil)
			runtime.ReadMemStats(&before)
			_, _, p, err := fr.readMessage()
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) || p != nil {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if d := after.TotalAlloc - before.TotalAlloc; d > 64<<10 {
				t.Errorf("allocated %d bytes before rejecting", d)
			}
			t.Log(err)
		})
	}
}

func TestParseHeader(t *testing.T) {
	ok := header{kind: 16, flags: flagFin, chunk: 10, seq: 3, total: 10}
	for name, tc := range map[string]struct {
		h    header
		raw  func(b *[headerLen]byte)
		want error
	}{
		"ok":             {h: ok},
		"heartbeat":      {h: header{kind: kindHeartbeat, flags: flagFin}},
		"reserved bits":  {h: ok, raw: func(b *[headerLen]byte) { b[3] = 1 }, want: ErrCorruptFrame},
		"unknown flag":   {h: header{kind: 16, flags: 2 | flagFin, chunk: 10, total: 10}, want: ErrCorruptFrame},
		"too large":      {h: header{kind: 16, chunk: 10, total: 1<<20 + 1}, want: ErrFrameTooLarge},
		"chunk > total":  {h: header{kind: 16, flags: flagFin, chunk: 11, total: 10}, want: ErrCorruptFrame},
		"chunk too big":  {h: header{kind: 16, chunk: maxChunkLen + 1, total: 1 << 20}, want: ErrCorruptFrame},
		"empty not last": {h: header{kind: 16, total: 10}, want: ErrCorruptFrame},
		"reserved kind":  {h: header{kind: 15, flags: flagFin}, want: ErrCorruptFrame},
		"bye payload":    {h: header{kind: kindBye, flags: flagFin, chunk: 1, total: 1}, want: ErrCorruptFrame},
	} {
		var b [headerLen]byte
		tc.h.put(&b)
		if tc.raw != nil {
			tc.raw(&b)
		}
		h, err := parseHeader(b[:], 1<<20)
		if !errors.Is(err, tc.want) || err == nil && h != tc.h {
			t.Errorf("%s: %+v %v, want %v", name, h, err, tc.want)
		}
	}
	if _, err := parseHeader(make([]byte, headerLen-1), 1<<20); !errors.Is(err, ErrCorruptFrame) {
		t.Errorf("short header: %v", err)
	}
}

func TestHandshakeCodec(t *testing.T) {
	msgs := []hsMsg{
		{typ: hsHello, rank: 3, size: 8, jobID: 99, nonce: [nonceLen]byte{1, 2, 3}},
		{typ: hsChallenge, nonce: [nonceLen]byte{4}},
		{typ: hsProof, mac: [macLen]byte{5}},
		{typ: hsResult, status: statusDuplicate},
	}
	for _, m := range msgs {
		b := appendHandshake(nil, &m)
		got, err := decodeHandshake(b)
		if err != nil || got != m {
			t.Errorf("%+v: decoded %+v %v", m, got, err)
		}
		if got, err := readHandshake(bytes.NewReader(b)); err != nil || got != m {
			t.Errorf("%+v: read %+v %v", m, got, err)
		}
	}
	hello := appendHandshake(nil, &msgs[0])
	for name, mut := range map[string]func([]byte){
		"magic":   func(b []byte) { b[0] = 'X' },
		"type":    func(b []byte) { b[5] = 9 },
		"length":  func(b []byte) { b[7]++ },
		"version": func(b []byte) { b[4] = 2 },
	} {
		b := bytes.Clone(hello)
		mut(b)
		if _, err := decodeHandshake(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	b := bytes.Clone(hello)
	b[4] = 2
	if _, err := decodeHandshake(b); !errors.Is(err, ErrRejected) {
		t.Errorf("version: %v, want ErrRejected", err)
	}
}

// authenticHeader returns a header frame (header and tag) of a message of
// kind declaring total bytes, under testMacer's key.
func authenticHeader(t testing.TB, kind uint8, total uint64) []byte {
	var hdr [headerLen]byte
	h := header{kind: kind, chunk: uint32(min(total, maxChunkLen)), total: total}
	h.put(&hdr)
	var tag [tagLen]byte
	testMacer(t).sum(&tag, hdr[:])
	return append(hdr[:], tag[:]...)
}

// TestHeaderAloneAllocatesLittle: an authenticated header declaring a
// message of 1 GiB (within MaxFrame) followed by nothing makes the receiver
// allocate at most firstAlloc, not the declared length.
func TestHeaderAloneAllocatesLittle(t *testing.T) {
	in := append(authenticHeader(t, 16, 1<<30), make([]byte, 4096)...)
	fr := newFrameReader(bytes.NewReader(in), testMacer(t), 1<<30, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, p, err := fr.readMessage()
	runtime.ReadMemStats(&after)
	if err == nil || p != nil {
		t.Fatalf("readMessage of a truncated message: %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > firstAlloc+64<<10 {
		t.Errorf("a 1 GiB header allocated %d bytes, want ≤ %d", d, firstAlloc)
	}
}

// TestKindLimits: each kind's payload is bounded by what it may hold: the
// transport's control messages by a few KiB, a caller's kind by
// Config.KindLimits; the check comes before any allocation.
func TestKindLimits(t *testing.T) {
	for _, tc := range []struct {
		kind  uint8
		total uint64
		ok    bool
	}{
		{kindPort, maxControlLen + 1, false},
		{kindReady, maxControlLen, true},
		{kindAnnounce, announceLen + 1, false},
		{kindChain, 1 << 20, true},
		{17, 4096, true},
		{17, 4097, false},
		{18, 1 << 20, true},
	} {
		fr := newFrameReader(bytes.NewReader(authenticHeader(t, tc.kind, tc.total)), testMacer(t), 1<<20, map[uint8]int{17: 4096})
		_, _, _, err := fr.readMessage()
		if tooLarge := errors.Is(err, ErrFrameTooLarge); tooLarge == tc.ok {
			t.Errorf("kind %d of %d bytes: %v", tc.kind, tc.total, err)
		}
	}
	cfg := testConfig(2)
	cfg.KindLimits = map[uint8]int{17: 100}
	m, slaves := startJob(t, cfg, nil)
	if err := slaves[1].Send(Message{Kind: 17, Payload: make([]byte, 101)}); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("send over the kind's limit: %v", err)
	}
	if err := m.Send(1, Message{Kind: 17, Payload: make([]byte, 100)}); err != nil {
		t.Fatal(err)
	}
	if msg, err := slaves[1].Recv(); err != nil || len(msg.Payload) != 100 {
		t.Fatal(msg, err)
	}
	bad := testConfig(2)
	bad.KindLimits = map[uint8]int{kindPort: 1}
	if _, err := NewMaster(listen(t), bad); !errors.Is(err, ErrConfig) {
		t.Errorf("a limit on a transport kind: %v", err)
	}
}
