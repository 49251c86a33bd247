package delta

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

var allCompressions = []Compression{None, S2, Zstd, Auto}

// sampleDeltas returns deltas covering the encoder's cases: empty, tiny,
// merged, fragmented, compressible and incompressible.
func sampleDeltas() []*Delta {
	rng := rand.New(rand.NewPCG(7, 8))
	empty := &Delta{Region: 1, Node: 0}
	tiny := &Delta{Region: 2, Node: 3}
	AppendFull(tiny, 5, []byte{1, 2, 3})
	AppendFull(tiny, 100, []byte{4})
	merged := &Delta{Region: ^uint64(0), Node: Merged}
	AppendFull(merged, ^uint64(0)-4, []byte{9, 9, 9, 9})
	frag := &Delta{Region: 4, Node: 1}
	zeros := &Delta{Region: 5, Node: 2}
	random := &Delta{Region: 6, Node: 7}
	for p := range 16 {
		cur, twin := pattern(rng, 4096, func(i int) bool { return i%8 < 3 })
		Diff(frag, uint64(p)*4096, cur, twin)
		AppendFull(zeros, uint64(p)*4096, make([]byte, 4096))
		noise := make([]byte, 4096)
		for i := range noise {
			noise[i] = byte(rng.Uint32())
		}
		AppendFull(random, uint64(p)*8192, noise)
	}
	return []*Delta{empty, tiny, merged, frag, zeros, random}
}

func equalDelta(a, b *Delta) bool {
	return a.Region == b.Region && a.Node == b.Node && equalRuns(a.Runs, b.Runs)
}

func TestRoundTrip(t *testing.T) {
	for i, d := range sampleDeltas() {
		for _, c := range allCompressions {
			prefix := []byte("prefix")
			enc, err := d.AppendBinary(slices.Clone(prefix), c)
			if err != nil {
				t.Fatalf("delta %d %v: %v", i, c, err)
			}
			if string(enc[:len(prefix)]) != "prefix" {
				t.Fatal("AppendBinary overwrote dst")
			}
			enc = enc[len(prefix):]
			got, err := Decode(enc, Limits{})
			if err != nil {
				t.Fatalf("delta %d %v: decode: %v", i, c, err)
			}
			if !equalDelta(got, d) {
				t.Fatalf("delta %d %v: round trip differs", i, c)
			}
			stored := Compression(enc[5])
			switch {
			case c == None && stored != None, c == S2 && stored != S2, c == Zstd && stored != Zstd:
				t.Fatalf("delta %d: asked %v, stored %v", i, c, stored)
			case c == Auto && d.Len() < AutoMinBytes && stored != None:
				t.Fatalf("delta %d: auto compressed a tiny body", i)
			}
			t.Logf("delta %d %v: %d runs, %d bytes -> %d bytes (%v)", i, c, len(d.Runs), d.Len(), len(enc), stored)
		}
	}
}

func TestAutoChoice(t *testing.T) {
	ds := sampleDeltas()
	zeros, random := ds[4], ds[5]
	if enc, _ := zeros.AppendBinary(nil, Auto); Compression(enc[5]) != S2 {
		t.Errorf("auto stored zeros as %v, want s2", Compression(enc[5]))
	}
	if enc, _ := random.AppendBinary(nil, Auto); Compression(enc[5]) != None {
		t.Errorf("auto stored noise as %v, want none", Compression(enc[5]))
	}
}

func TestEncodeCoalescesAndRejectsInvalid(t *testing.T) {
	d := &Delta{Region: 1, Node: 0, Runs: []Run{{0, []byte{1}}, {1, []byte{2}}, {3, nil}, {5, []byte{3}}}}
	enc, err := d.AppendBinary(nil, None)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(enc, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !equalRuns(got.Runs, []Run{{0, []byte{1, 2}}, {5, []byte{3}}}) {
		t.Fatalf("runs %s", dumpRuns(got.Runs))
	}
	bad := []*Delta{
		nil,
		{Runs: []Run{{5, []byte{1}}, {4, []byte{1}}}},
		{Runs: []Run{{^uint64(0), []byte{1, 2}}}},
		{Node: -2},
		{Node: 1 << 40},
	}
	for i, d := range bad {
		out, err := d.AppendBinary([]byte{1}, None)
		if !errors.Is(err, ErrInvalid) || len(out) != 1 {
			t.Errorf("bad delta %d: err = %v, len %d", i, err, len(out))
		}
	}
	if _, err := d.AppendBinary(nil, Compression(9)); !errors.Is(err, ErrCompression) {
		t.Errorf("unknown compression: err = %v", err)
	}
}

// TestCorruptionRejected flips every bit pattern of every byte, truncates
// at every length and appends a byte, for each compression.
func TestCorruptionRejected(t *testing.T) {
	d := &Delta{Region: 3, Node: 1}
	AppendFull(d, 8, []byte("hello, hello, hello, hello"))
	AppendFull(d, 100, []byte{1, 2, 3})
	for _, c := range []Compression{None, S2, Zstd} {
		enc, err := d.AppendBinary(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range enc {
			for _, x := range []byte{0x01, 0x80, 0xFF} {
				bad := slices.Clone(enc)
				bad[i] ^= x
				if _, err := Decode(bad, Limits{}); err == nil {
					t.Fatalf("%v: flip %#x at byte %d accepted", c, x, i)
				} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("%v: flip at %d: error %v wraps no sentinel", c, i, err)
				}
			}
		}
		for n := range enc {
			if _, err := Decode(enc[:n], Limits{}); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%v: truncation to %d: err = %v", c, n, err)
			}
		}
		if _, err := Decode(append(slices.Clone(enc), 0), Limits{}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%v: trailing byte: err = %v", c, err)
		}
	}
}

// reseal recomputes both checksums of a forged encoding.
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[48:], checksum(b[:48]))
	n := len(b) - trailSize
	binary.LittleEndian.PutUint32(b[n:], checksum(b[:n]))
	return b
}

// forge builds an encoding from raw header fields and a stored body.
func forge(c Compression, runs uint32, table, payload uint64, stored []byte) []byte {
	b := make([]byte, headerSize, headerSize+len(stored)+trailSize)
	copy(b, magic)
	b[4] = version
	b[5] = byte(c)
	binary.LittleEndian.PutUint32(b[20:], runs)
	binary.LittleEndian.PutUint64(b[24:], table)
	binary.LittleEndian.PutUint64(b[32:], payload)
	binary.LittleEndian.PutUint64(b[40:], uint64(len(stored)))
	b = append(b, stored...)
	b = append(b, 0, 0, 0, 0)
	return reseal(b)
}

func TestHugeDeclaredLengthsRejectedWithoutAllocating(t *testing.T) {
	cases := []struct {
		name string
		enc  []byte
		want error
	}{
		{"runs", forge(None, ^uint32(0), 1<<40, 1<<41, nil), ErrTooLarge},
		{"payload", forge(S2, 1, 2, 1<<62, []byte{0}), ErrTooLarge},
		{"table", forge(Zstd, 1, 1<<60, 1, []byte{0}), ErrCorrupt},
		{"stored", forge(None, 1, 2, 1, []byte{0, 1}), ErrCorrupt},
		// Declared sizes within the limits, but the s2 block claims more.
		{"s2 block", forge(S2, 1, 2, 10, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}), ErrCorrupt},
	}
	for _, tc := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Decode(tc.enc, Limits{MaxBytes: 1 << 20, MaxRuns: 1 << 16})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("%s: allocated %d bytes", tc.name, n)
		}
	}
}

func TestDecodeLimits(t *testing.T) {
	d := &Delta{Region: 1, Node: 0}
	AppendFull(d, 0, make([]byte, 100))
	AppendFull(d, 200, make([]byte, 100))
	for _, c := range []Compression{None, S2, Zstd} {
		enc, err := d.AppendBinary(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(enc, Limits{MaxBytes: 199}); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%v MaxBytes: err = %v", c, err)
		}
		if _, err := Decode(enc, Limits{MaxRuns: 1}); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%v MaxRuns: err = %v", c, err)
		}
		_, err = Decode(enc, Limits{ArenaSize: 299})
		var be *BoundsError
		if !errors.As(err, &be) || !errors.Is(err, ErrCorrupt) || be.Offset != 200 || be.Size != 299 {
			t.Errorf("%v ArenaSize: err = %v", c, err)
		}
		if _, err := Decode(enc, Limits{MaxBytes: 200, MaxRuns: 2, ArenaSize: 300}); err != nil {
			t.Errorf("%v exact limits: %v", c, err)
		}
		if _, err := Decode(enc, ArenaLimits(300)); err != nil {
			t.Errorf("%v ArenaLimits: %v", c, err)
		}
	}
}

func TestDecodeIntoReusesStorage(t *testing.T) {
	ds := sampleDeltas()
	var d Delta
	for _, want := range append(ds, ds...) {
		enc, err := want.AppendBinary(nil, S2)
		if err != nil {
			t.Fatal(err)
		}
		if err := DecodeInto(&d, enc, Limits{}); err != nil || !equalDelta(&d, want) {
			t.Fatalf("DecodeInto = %v, equal %v", err, equalDelta(&d, want))
		}
		enc[len(enc)-1] ^= 1
		if err := DecodeInto(&d, enc, Limits{}); !errors.Is(err, ErrCorrupt) || len(d.Runs) != 0 {
			t.Fatalf("corrupt: err = %v, runs %d", err, len(d.Runs))
		}
	}
	if err := DecodeInto(nil, nil, Limits{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("nil dst: err = %v", err)
	}
}

func TestDecodeRejectsForgedFields(t *testing.T) {
	d := &Delta{Region: 1, Node: 0}
	AppendFull(d, 4, []byte{1, 2})
	AppendFull(d, 10, []byte{3})
	enc, _ := d.AppendBinary(nil, None)
	mutate := map[string]func(b []byte) []byte{
		"version": func(b []byte) []byte { b[4] = 2; return b },
		"kind":    func(b []byte) []byte { b[5] = 3; return b },
		"reserve": func(b []byte) []byte { b[6] = 1; return b },
		"node":    func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], uint32(0xfffffffe)); return b },
		// Second run gap 4 -> 0: touches the first run.
		"touching": func(b []byte) []byte { b[headerSize+2] = 0; return b },
		// First run's length 2 -> 0.
		"empty run": func(b []byte) []byte { b[headerSize+1] = 0; return b },
		// Lengths no longer add up to the payload.
		"payload": func(b []byte) []byte { b[headerSize+3] = 2; return b },
	}
	for name, m := range mutate {
		bad := reseal(m(slices.Clone(enc)))
		_, err := Decode(bad, Limits{})
		want := ErrCorrupt
		if name == "version" {
			want = ErrVersion
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	}
	// A non-minimal varint: gap 4 written as 0x84 0x00 in a table of 5.
	b := forge(None, 2, 5, 3, []byte{0x84, 0x00, 2, 4, 1, 1, 2, 3})
	if _, err := Decode(b, Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("non-minimal varint: err = %v", err)
	}
}

func TestParseCompression(t *testing.T) {
	for _, c := range allCompressions {
		got, err := ParseCompression(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCompression(%q) = %v, %v", c.String(), got, err)
		}
		var v Compression
		if err := v.UnmarshalText([]byte(c.String())); err != nil || v != c {
			t.Errorf("UnmarshalText(%q) = %v, %v", c, v, err)
		}
	}
	if c, err := ParseCompression("ZSTD"); err != nil || c != Zstd {
		t.Errorf("ParseCompression(ZSTD) = %v, %v", c, err)
	}
	if _, err := ParseCompression("lz4"); !errors.Is(err, ErrCompression) {
		t.Errorf("ParseCompression(lz4): err = %v", err)
	}
	if s := Compression(9).String(); s != "Compression(9)" {
		t.Errorf("String = %q", s)
	}
}
