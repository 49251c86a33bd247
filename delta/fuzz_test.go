package delta

import (
	"bytes"
	"encoding/binary"
	"errors"
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

// FuzzDiff checks Diff against diffWords, its byte-by-byte reference, and
// against the byte-exact diffReference (Diff covers what it covers, with the
// same values), over one call and over the input cut into pages of a
// fuzzer-chosen size (coalescing across calls).
func FuzzDiff(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789"), []byte("abcdefghijkLMNopqrstuvwxyz012345678X"), uint64(0), uint8(8))
	f.Add(make([]byte, 40), bytes.Repeat([]byte{1}, 40), uint64(4096), uint8(3))
	f.Add([]byte{1, 2, 3}, []byte{1, 2, 3}, ^uint64(0)-1, uint8(0))
	f.Add(bytes.Repeat([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 9), make([]byte, 99), uint64(5), uint8(16))
	f.Fuzz(func(t *testing.T, cur, twin []byte, off uint64, page uint8) {
		var fast, words, exact Delta
		Diff(&fast, off, cur, twin)
		diffWords(&words, off, cur, twin)
		diffReference(&exact, off, cur, twin)
		if !equalRuns(fast.Runs, words.Runs) {
			t.Fatalf("Diff %s\ndiffWords %s", dumpRuns(fast.Runs), dumpRuns(words.Runs))
		}
		n := min(len(cur), len(twin))
		if n > 0 && off+uint64(n) >= off { // no overflow: full invariants
			checkCovers(t, &fast, off, cur[:n], twin[:n])
			checkCanonical(t, &exact, off, cur[:n], twin[:n])
		}
		if page == 0 || off+uint64(n) < off {
			return
		}
		var paged, pagedExact Delta
		for p := 0; p < n; p += int(page) {
			e := min(n, p+int(page))
			Diff(&paged, off+uint64(p), cur[p:e], twin[p:e])
			diffReference(&pagedExact, off+uint64(p), cur[p:e], twin[p:e])
		}
		if !equalRuns(pagedExact.Runs, exact.Runs) {
			t.Fatalf("paged diffReference %s\none call %s", dumpRuns(pagedExact.Runs), dumpRuns(exact.Runs))
		}
		if n > 0 {
			checkCovers(t, &paged, off, cur[:n], twin[:n])
		}
		// Pages of whole aligned words give the same runs as one call.
		if off%8 == 0 && page%8 == 0 && !equalRuns(paged.Runs, fast.Runs) {
			t.Fatalf("paged Diff %s\none call %s", dumpRuns(paged.Runs), dumpRuns(fast.Runs))
		}
	})
}

// FuzzMergeBase builds the deltas of up to four nodes that write into one
// entry state (with Diff, paged Diff, diffReference or whole written ranges
// with AppendFull: runs that carry unchanged bytes or not) and checks
// MergeBase against a byte-array reference merge: the same conflicts, and
// otherwise a delta that takes every node, from its own state, to the
// reference result. For byte-exact deltas it also checks that MergeBase without a base agrees.
//
// writes is read as records of 5 bytes: node, offset (2 bytes), length,
// value; a value with its high bit set is replaced by a function of the
// offset, so that nodes often agree.
func FuzzMergeBase(f *testing.F) {
	f.Add(bytes.Repeat([]byte{0}, 64), []byte{0, 0, 0, 20, 1, 1, 20, 0, 20, 2}, uint8(2), uint8(0))
	f.Add(bytes.Repeat([]byte{3}, 100), []byte{0, 5, 0, 9, 3, 1, 9, 0, 9, 0x80, 2, 12, 0, 3, 0x81}, uint8(3), uint8(0x1b))
	f.Add([]byte("entry state of a small arena, 48 bytes long...."), []byte{0, 1, 0, 30, 7, 1, 3, 0, 4, 7, 1, 17, 0, 1, 9}, uint8(2), uint8(0xff))
	f.Fuzz(func(t *testing.T, entry, writes []byte, nodes, mode uint8) {
		if len(entry) == 0 || len(entry) > 4096 {
			return
		}
		n := len(entry)
		k := 1 + int(nodes)%4
		curs := make([][]byte, k)
		lo, hi := make([]int, k), make([]int, k) // written range per node
		for i := range curs {
			curs[i] = slices.Clone(entry)
			lo[i], hi[i] = n, 0
		}
		for ; len(writes) >= 5; writes = writes[5:] {
			node := int(writes[0]) % k
			at := int(binary.LittleEndian.Uint16(writes[1:])) % n
			end := min(n, at+1+int(writes[3])%64)
			for i := at; i < end; i++ {
				v := writes[4] + byte(i-at)
				if writes[4] >= 0x80 {
					v = byte(i*31) ^ 0x55
				}
				curs[node][i] = v
			}
			lo[node], hi[node] = min(lo[node], at), max(hi[node], end)
		}
		// The reference: per byte, the writers' values.
		want := slices.Clone(entry)
		conflicts := make([]bool, n)
		anyConflict := false
		for i := range n {
			for _, cur := range curs {
				switch {
				case cur[i] == entry[i]:
				case want[i] == entry[i]:
					want[i] = cur[i]
				case want[i] != cur[i]:
					conflicts[i], anyConflict = true, true
				}
			}
		}
		ds := make([]*Delta, k)
		exactOnly, words := true, true
		for i, cur := range curs {
			d := &Delta{Region: 3, Node: i}
			switch m := mode >> (2 * i) & 3; m {
			case 0:
				Diff(d, 0, cur, entry)
				exactOnly = false
			case 1:
				for p := 0; p < n; p += 16 {
					Diff(d, uint64(p), cur[p:min(n, p+16)], entry[p:min(n, p+16)])
				}
				exactOnly = false
			case 2:
				diffReference(d, 0, cur, entry)
				words = false
			case 3:
				words = false
				if lo[i] < hi[i] {
					AppendFull(d, uint64(lo[i]), cur[lo[i]:hi[i]])
				}
				exactOnly = false
			}
			checkCovers(t, d, 0, cur, entry)
			ds[i] = d
		}
		m, err := MergeBase(3, sliceBase(entry), ds...)
		checkMerged(t, "MergeBase", m, err, entry, want, curs, conflicts, anyConflict)
		if exactOnly {
			m, err := MergeBase(3, nil, ds...)
			checkMerged(t, "MergeBase without base", m, err, entry, want, curs, conflicts, anyConflict)
		}
		if !anyConflict && words {
			checkVariables(t, 1<<(entry[0]%4), entry, want, curs, ds)
		}
	})
}

// checkVariables merges ds, made by Diff (runs of whole words) with no
// conflicting bytes, with
// variables of size bytes (aligned on multiples of size) and checks the
// variable rule: with no error, every variable that a node wrote ends with
// the value of one node that wrote it; a Mixed conflict names two nodes
// that wrote bytes of the variable the other did not.
func checkVariables(t *testing.T, size int, entry, want []byte, curs [][]byte, ds []*Delta) {
	t.Helper()
	starts := map[int]uint8{1: 0xff, 2: 0x55, 4: 0x11, 8: 0x01}[size]
	rule := Rule{Locations: func(uint64) uint8 { return starts }}
	var m Delta
	err := MergeRuleInto(&m, 3, sliceBase(entry), rule, ds...)
	wrote := func(node, lo, hi int) (set uint8) {
		for i := lo; i < hi; i++ {
			if curs[node][i] != entry[i] {
				set |= 1 << (i - lo)
			}
		}
		return set
	}
	if err != nil {
		var ce *ConflictError
		if !errors.As(err, &ce) || !ce.Mixed || int(ce.Offset)%size != 0 || int(ce.Offset) >= len(entry) ||
			ce.NodeA < 0 || ce.NodeA >= len(curs) || ce.NodeB < 0 || ce.NodeB >= len(curs) {
			t.Fatalf("merge with %d-byte variables: %v, want a mixed conflict", size, err)
		}
		lo, hi := int(ce.Offset), min(len(entry), int(ce.Offset)+size)
		a, b := wrote(ce.NodeA, lo, hi), wrote(ce.NodeB, lo, hi)
		if a&^b == 0 || b&^a == 0 {
			t.Fatalf("mixed conflict %+v: nodes wrote %08b and %08b of the variable at %d", ce, a, b, lo)
		}
		return
	}
	got := slices.Clone(entry)
	if err := m.Apply(got); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("merge with %d-byte variables gives\n%x\nwant\n%x", size, got, want)
	}
	for lo := 0; lo < len(entry); lo += size {
		hi := min(len(entry), lo+size)
		if bytes.Equal(got[lo:hi], entry[lo:hi]) {
			continue
		}
		found := false
		for _, cur := range curs {
			found = found || bytes.Equal(cur[lo:hi], got[lo:hi])
		}
		if !found {
			t.Fatalf("the %d-byte variable at %d ends as %x, which no node wrote", size, lo, got[lo:hi])
		}
	}
}

// checkMerged checks a merge's result against the reference.
func checkMerged(t *testing.T, name string, m *Delta, err error, entry, want []byte, curs [][]byte, conflicts []bool, anyConflict bool) {
	t.Helper()
	if anyConflict {
		var ce *ConflictError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: err = %v, want a conflict", name, err)
		}
		o := ce.Offset
		if o >= uint64(len(entry)) || !conflicts[o] || ce.Region != 3 || ce.NodeA == ce.NodeB ||
			ce.NodeA < 0 || ce.NodeA >= len(curs) || ce.NodeB < 0 || ce.NodeB >= len(curs) ||
			curs[ce.NodeA][o] != ce.ValueA || curs[ce.NodeB][o] != ce.ValueB ||
			ce.ValueA == entry[o] || ce.ValueB == entry[o] || ce.ValueA == ce.ValueB {
			t.Fatalf("%s: conflict %+v is not one", name, ce)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkCovers(t, m, 0, want, entry)
	for i, cur := range append(curs, entry) {
		got := slices.Clone(cur)
		if err := m.Apply(got); err != nil {
			t.Fatalf("%s: apply: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: node %d ends with\n%x\nwant\n%x", name, i, got, want)
		}
	}
}
