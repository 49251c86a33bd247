package delta

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzDecode checks that Decode never panics and that every delta it
// accepts re-encodes, in every compression, to an encoding that decodes
// equal; uncompressed encodings are canonical and re-encode byte for byte.
func FuzzDecode(f *testing.F) {
	// Small seeds: the fuzzer minimises every interesting input, and each
	// run re-encodes what it accepts four times.
	small := &Delta{Region: 4, Node: 1}
	for i := uint64(0); i < 64; i += 8 {
		AppendFull(small, 3*i, []byte{byte(i), 0, byte(i + 1)})
	}
	for _, d := range append(sampleDeltas()[:3], small) {
		for _, c := range []Compression{None, S2, Zstd} {
			enc, err := d.AppendBinary(nil, c)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(enc)
		}
	}
	lim := Limits{MaxBytes: 1 << 20, MaxRuns: 1 << 16, ArenaSize: 1 << 40}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkDecode(t, src, lim)
		// Most mutations only break a checksum: also decode the input with
		// its checksums fixed, to reach the parser and decompressors.
		if len(src) >= headerSize+trailSize {
			checkDecode(t, reseal(slices.Clone(src)), lim)
		}
	})
}

// checkDecode decodes src and, if Decode accepts it, checks the result.
func checkDecode(t *testing.T, src []byte, lim Limits) {
	t.Helper()
	d, err := Decode(src, lim)
	if err != nil {
		return
	}
	if _, err := checkOrder(d.Runs); err != nil {
		t.Fatalf("accepted unsorted runs: %v", err)
	}
	for _, c := range []Compression{None, S2, Zstd, Auto} {
		enc, err := d.AppendBinary(nil, c)
		if err != nil {
			t.Fatalf("re-encode %v: %v", c, err)
		}
		got, err := Decode(enc, lim)
		if err != nil {
			t.Fatalf("decode re-encoding %v: %v", c, err)
		}
		if !equalDelta(got, d) {
			t.Fatalf("re-encoding %v decodes differently", c)
		}
		if c == None && Compression(src[5]) == None && !bytes.Equal(enc, src) {
			t.Fatalf("uncompressed re-encoding differs:\n got %x\nwant %x", enc, src)
		}
	}
}

// FuzzDiff checks Diff against DiffReference, over one call and over the
// input cut into pages of a fuzzer-chosen size (coalescing across calls).
func FuzzDiff(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789"), []byte("abcdefghijkLMNopqrstuvwxyz012345678X"), uint64(0), uint8(8))
	f.Add(make([]byte, 40), bytes.Repeat([]byte{1}, 40), uint64(4096), uint8(3))
	f.Add([]byte{1, 2, 3}, []byte{1, 2, 3}, ^uint64(0)-1, uint8(0))
	f.Fuzz(func(t *testing.T, cur, twin []byte, off uint64, page uint8) {
		var fast, ref Delta
		Diff(&fast, off, cur, twin)
		DiffReference(&ref, off, cur, twin)
		if !equalRuns(fast.Runs, ref.Runs) {
			t.Fatalf("Diff %s\nDiffReference %s", dumpRuns(fast.Runs), dumpRuns(ref.Runs))
		}
		n := min(len(cur), len(twin))
		if n > 0 && off+uint64(n) >= off { // no overflow: full invariants
			checkCanonical(t, &fast, off, cur[:n], twin[:n])
		}
		if page == 0 {
			return
		}
		var paged Delta
		for p := 0; p < n; p += int(page) {
			e := min(n, p+int(page))
			Diff(&paged, off+uint64(p), cur[p:e], twin[p:e])
		}
		if off+uint64(n) >= off && !equalRuns(paged.Runs, fast.Runs) {
			t.Fatalf("paged Diff %s\none call %s", dumpRuns(paged.Runs), dumpRuns(fast.Runs))
		}
	})
}
