package delta

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAppendBinaryVecMatchesAppendBinary checks that the pieces of the
// by-reference encoding, written one after the other, are AppendBinary's
// uncompressed encoding, and that the data pieces alias the runs.
func TestAppendBinaryVecMatchesAppendBinary(t *testing.T) {
	for i, d := range sampleDeltas() {
		want, err := d.AppendBinary(nil, None)
		if err != nil {
			t.Fatal(err)
		}
		head, data, trailer, err := d.AppendBinaryVec([]byte("env"), [][]byte{[]byte("x")})
		if err != nil {
			t.Fatalf("delta %d: %v", i, err)
		}
		if string(head[:3]) != "env" || string(data[0]) != "x" {
			t.Fatalf("delta %d: AppendBinaryVec overwrote what it appends to", i)
		}
		got := slices.Concat(append([][]byte{head[3:]}, append(data[1:], trailer[:])...)...)
		if !bytes.Equal(got, want) {
			t.Fatalf("delta %d: vectored encoding differs:\n got %x\nwant %x", i, got, want)
		}
		k := 1
		for _, r := range d.Runs {
			if len(r.Data) == 0 {
				continue
			}
			if &data[k][0] != &r.Data[0] {
				t.Fatalf("delta %d: piece %d is a copy, not the run's data", i, k)
			}
			k++
		}
	}
	bad := &Delta{Runs: []Run{{Off: 10, Data: []byte{1}}, {Off: 5, Data: []byte{2}}}}
	head, data, _, err := bad.AppendBinaryVec([]byte("h"), nil)
	if err == nil || string(head) != "h" || len(data) != 0 {
		t.Fatalf("unsorted runs: err %v, head %q, %d pieces", err, head, len(data))
	}
}

// TestDecodeRefAliasesSource checks that DecodeRef gives DecodeInto's delta,
// with runs pointing into the source when it is not compressed.
func TestDecodeRefAliasesSource(t *testing.T) {
	var got Delta
	for i, d := range sampleDeltas() {
		for _, c := range []Compression{None, S2, Zstd} {
			enc, err := d.AppendBinary(nil, c)
			if err != nil {
				t.Fatal(err)
			}
			if err := DecodeRef(&got, enc, Limits{}); err != nil {
				t.Fatalf("delta %d %v: %v", i, c, err)
			}
			if !equalDelta(&got, d) {
				t.Fatalf("delta %d %v: DecodeRef differs from the encoded delta", i, c)
			}
			for _, r := range got.Runs {
				p, lo := uintptr(unsafeAddr(r.Data)), uintptr(unsafeAddr(enc))
				if aliased := p >= lo && p < lo+uintptr(len(enc)); aliased != (c == None) {
					t.Fatalf("delta %d %v: run at %#x aliases the source: %v", i, c, r.Off, aliased)
				}
			}
		}
	}
	enc, _ := sampleDeltas()[3].AppendBinary(nil, None)
	enc[len(enc)-1] ^= 1
	if err := DecodeRef(&got, enc, Limits{}); err == nil || len(got.Runs) != 0 {
		t.Fatalf("corrupt encoding: err %v, %d runs left", err, len(got.Runs))
	}
}

// excludeReference is Exclude byte by byte: every byte of merged that own
// does not cover with the same value.
func excludeReference(merged, own []Run, size int) (vals []byte, keep []bool) {
	vals, keep = make([]byte, size), make([]bool, size)
	for _, r := range merged {
		for i, b := range r.Data {
			vals[int(r.Off)+i], keep[int(r.Off)+i] = b, true
		}
	}
	for _, r := range own {
		for i, b := range r.Data {
			if o := int(r.Off) + i; keep[o] && vals[o] == b {
				keep[o] = false
			}
		}
	}
	return vals, keep
}

// TestExcludeMatchesReference checks Exclude on random runs against its
// byte-by-byte reference: the same bytes, sorted disjoint runs, data
// aliasing merged.
func TestExcludeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const size = 512
	randomRuns := func(src []byte, p int) []Run {
		var rs []Run
		for off := rng.IntN(16); off < size; {
			n := 1 + rng.IntN(40)
			if off+n > size {
				n = size - off
			}
			if rng.IntN(100) < p {
				rs = append(rs, Run{Off: uint64(off), Data: src[off : off+n : off+n]})
			}
			off += n + rng.IntN(3)
		}
		return rs
	}
	var dst []Run
	for iter := 0; iter < 2000; iter++ {
		mvals, ovals := make([]byte, size), make([]byte, size)
		for i := range mvals {
			mvals[i] = byte(rng.IntN(3))
			ovals[i] = mvals[i]
			if rng.IntN(4) == 0 {
				ovals[i] = byte(rng.IntN(3))
			}
		}
		merged, own := randomRuns(mvals, 70), randomRuns(ovals, 50)
		dst = checkExclude(t, dst, merged, own, mvals, size)
	}
}

// checkExclude checks Exclude(dst[:0], merged, own) against its reference;
// merged's runs alias mvals (size bytes). It returns the runs for reuse.
func checkExclude(t *testing.T, dst, merged, own []Run, mvals []byte, size int) []Run {
	t.Helper()
	dst = Exclude(dst[:0], merged, own)
	if _, err := checkOrder(dst); err != nil {
		t.Fatal(err)
	}
	vals, keep := excludeReference(merged, own, size)
	got := make([]bool, size)
	for _, r := range dst {
		if len(r.Data) == 0 {
			t.Fatalf("empty run at %#x", r.Off)
		}
		for i, b := range r.Data {
			o := int(r.Off) + i
			if &r.Data[i] != &mvals[o] {
				t.Fatalf("byte %#x does not alias merged", o)
			}
			got[o] = true
			if b != vals[o] {
				t.Fatalf("byte %#x is %d, want %d", o, b, vals[o])
			}
		}
	}
	inOwn := 0
	for o := range size {
		in := func(rs []Run) bool {
			for _, r := range rs {
				if uint64(o) >= r.Off && uint64(o) < r.End() {
					return true
				}
			}
			return false
		}
		if in(merged) && in(own) {
			inOwn++
		}
	}
	if n := Overlap(merged, own); n != inOwn {
		t.Fatalf("Overlap %d, want %d", n, inOwn)
	}
	if !slices.Equal(got, keep) {
		t.Fatalf("Exclude kept %v\nwant %v", got, keep)
	}
	return dst
}

// FuzzExclude checks Exclude and Overlap against their byte-by-byte
// references on runs drawn from the input: each run is a (gap, length,
// fill) triple, merged's runs first, then own's after a zero byte.
func FuzzExclude(f *testing.F) {
	f.Add([]byte{0, 8, 1, 2, 8, 2, 0, 4, 6, 1, 3, 3, 2})
	f.Add([]byte{1, 40, 7, 0, 1, 20, 7, 1, 30, 9})
	f.Fuzz(func(t *testing.T, in []byte) {
		const size = 1024
		mvals, ovals := make([]byte, size), make([]byte, size)
		runs := func(in []byte, vals []byte) ([]Run, []byte) {
			var rs []Run
			pos := 0
			for len(in) >= 3 && in[0] != 0 || len(in) >= 3 && len(rs) == 0 {
				gap, n, fill := int(in[0]), 1+int(in[1]), in[2]
				in = in[3:]
				if len(rs) > 0 {
					gap++ // sorted and disjoint
				}
				off := pos + gap
				if off+n > size {
					break
				}
				for i := off; i < off+n; i++ {
					vals[i] = fill + byte(i%3)
				}
				rs = append(rs, Run{Off: uint64(off), Data: vals[off : off+n : off+n]})
				pos = off + n
			}
			return rs, in
		}
		merged, rest := runs(in, mvals)
		if len(rest) > 0 {
			rest = rest[1:]
		}
		own, _ := runs(rest, ovals)
		checkExclude(t, nil, merged, own, mvals, size)
	})
}

// TestMergeBaseRefAliases checks that MergeBaseRef keeps runs nothing
// overlaps as they are (touching ones included), builds overlaps in its own
// storage, and reports a conflict as MergeBaseInto does.
func TestMergeBaseRefAliases(t *testing.T) {
	entry := make([]byte, 64)
	base := func(off uint64) []byte { return entry[off:] }
	a := &Delta{Region: 1, Node: 0}
	AppendFull(a, 0, []byte("aaaaaaaa"))
	AppendFull(a, 32, []byte{0, 0, 0, 0, 'a', 'a', 'a', 'a'}) // shares a word with b
	b := &Delta{Region: 1, Node: 1}
	AppendFull(b, 8, []byte("bbbbbbbb")) // touches a's first run
	AppendFull(b, 32, []byte{'b', 'b', 'b', 'b', 0, 0, 0, 0})
	var got Delta
	if err := MergeBaseRef(&got, 1, base, a, b); err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 3 || &got.Runs[0].Data[0] != &a.Runs[0].Data[0] || &got.Runs[1].Data[0] != &b.Runs[0].Data[0] {
		t.Fatalf("runs not kept by reference: %s", dumpRuns(got.Runs))
	}
	if r := got.Runs[2]; r.Off != 32 || string(r.Data) != "bbbbaaaa" || &r.Data[0] == &a.Runs[1].Data[0] || &r.Data[0] == &b.Runs[1].Data[0] {
		t.Fatalf("overlap merged as %q at %#x, or in an input's memory", r.Data, r.Off)
	}
	if string(a.Runs[1].Data[:4]) != "\x00\x00\x00\x00" {
		t.Fatal("MergeBaseRef wrote into an input")
	}
	c := &Delta{Region: 1, Node: 2}
	AppendFull(c, 4, []byte("cccc"))
	want := MergeBaseInto(new(Delta), 1, base, a, b, c)
	err := MergeBaseRef(&got, 1, base, a, b, c)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("conflict: MergeBaseRef %v, MergeBaseInto %v", err, want)
	}
}
