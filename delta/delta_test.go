package delta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// equalRuns reports whether two run lists hold the same offsets and bytes.
func equalRuns(a, b []Run) bool {
	return slices.EqualFunc(a, b, func(x, y Run) bool { return x.Off == y.Off && bytes.Equal(x.Data, y.Data) })
}

func dumpRuns(rs []Run) string {
	var sb strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&sb, "[%#x %x] ", r.Off, r.Data)
	}
	return sb.String()
}

// checkCanonical verifies the invariants of a byte-exact diff of cur
// against twin at offset base: runs sorted, separated by at least one byte,
// made only of changed bytes, and covering every changed byte.
func checkCanonical(t *testing.T, d *Delta, base uint64, cur, twin []byte) {
	t.Helper()
	covered := make([]bool, len(cur))
	var prevEnd uint64
	for i, r := range d.Runs {
		if len(r.Data) == 0 {
			t.Fatalf("run %d is empty", i)
		}
		if i > 0 && r.Off <= prevEnd {
			t.Fatalf("run %d at %#x not separated from previous end %#x", i, r.Off, prevEnd)
		}
		for j, v := range r.Data {
			k := int(r.Off-base) + j
			if cur[k] == twin[k] {
				t.Fatalf("run %d includes unchanged byte at %#x", i, r.Off+uint64(j))
			}
			if v != cur[k] {
				t.Fatalf("run %d byte %d = %#x, want %#x", i, j, v, cur[k])
			}
			covered[k] = true
		}
		prevEnd = r.End()
	}
	for k := range cur {
		if cur[k] != twin[k] && !covered[k] {
			t.Fatalf("changed byte at %#x not covered", base+uint64(k))
		}
	}
}

// pattern builds cur from twin by changing the bytes that change selects.
func pattern(rng *rand.Rand, n int, change func(i int) bool) (cur, twin []byte) {
	twin = make([]byte, n)
	for i := range twin {
		twin[i] = byte(rng.IntN(256))
	}
	cur = slices.Clone(twin)
	for i := range cur {
		if change(i) {
			cur[i] ^= byte(1 + rng.IntN(255))
		}
	}
	return cur, twin
}

// diffWords is Diff's rule written byte by byte, the reference that tests
// and fuzzing compare Diff against: byte k of cur is in a run if some byte
// of cur in the same 8-byte word (aligned on an arena offset that is a
// multiple of 8, cut at the ends of cur) differs from twin.
func diffWords(d *Delta, off uint64, cur, twin []byte) {
	n := min(len(cur), len(twin))
	cur = clip(off, cur[:n])
	n = len(cur)
	word := func(k int) uint64 { return (off + uint64(k)) / 8 }
	changed := make(map[uint64]bool)
	for k := range n {
		if cur[k] != twin[k] {
			changed[word(k)] = true
		}
	}
	for k := 0; k < n; {
		if !changed[word(k)] {
			k++
			continue
		}
		start := k
		for k < n && changed[word(k)] {
			k++
		}
		d.appendRun(off+uint64(start), cur[start:k])
	}
}

// checkCovers verifies the invariants of any delta of cur against twin at
// offset base, byte-exact or not: runs sorted, non-empty, separated by at
// least one byte, holding cur's values, and covering every changed byte, so
// that applying the delta to twin gives cur.
func checkCovers(t *testing.T, d *Delta, base uint64, cur, twin []byte) {
	t.Helper()
	covered := make([]bool, len(cur))
	var prevEnd uint64
	for i, r := range d.Runs {
		if len(r.Data) == 0 {
			t.Fatalf("run %d is empty", i)
		}
		if i > 0 && r.Off <= prevEnd {
			t.Fatalf("run %d at %#x not separated from previous end %#x", i, r.Off, prevEnd)
		}
		if r.Off < base || r.End()-base > uint64(len(cur)) {
			t.Fatalf("run %d [%#x, %#x) outside [%#x, %#x)", i, r.Off, r.End(), base, base+uint64(len(cur)))
		}
		for j, v := range r.Data {
			k := int(r.Off-base) + j
			if v != cur[k] {
				t.Fatalf("run %d byte %d = %#x, want %#x", i, j, v, cur[k])
			}
			covered[k] = true
		}
		prevEnd = r.End()
	}
	for k := range cur {
		if cur[k] != twin[k] && !covered[k] {
			t.Fatalf("changed byte at %#x not covered", base+uint64(k))
		}
	}
}

func TestDiffMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 65, 100, 4095, 4096, 4097}
	for _, n := range lengths {
		cases := map[string]func(int) bool{
			"none":       func(int) bool { return false },
			"all":        func(int) bool { return true },
			"first":      func(i int) bool { return i == 0 },
			"last":       func(i int) bool { return i == n-1 },
			"firstlast":  func(i int) bool { return i == 0 || i == n-1 },
			"alternate":  func(i int) bool { return i%2 == 0 },
			"word":       func(i int) bool { return i/8%3 == 1 },
			"p1":         func(int) bool { return rng.IntN(100) == 0 },
			"p10":        func(int) bool { return rng.IntN(10) == 0 },
			"p50":        func(int) bool { return rng.IntN(2) == 0 },
			"p90":        func(int) bool { return rng.IntN(10) != 0 },
			"allbutlast": func(i int) bool { return i != n-1 },
		}
		for name, change := range cases {
			for rep := range 4 {
				cur, twin := pattern(rng, n, change)
				off := uint64(rng.IntN(1 << 20))
				var fast, words, exact Delta
				Diff(&fast, off, cur, twin)
				diffWords(&words, off, cur, twin)
				diffReference(&exact, off, cur, twin)
				if !equalRuns(fast.Runs, words.Runs) {
					t.Fatalf("n=%d %s rep %d off %#x:\nDiff      %s\ndiffWords %s", n, name, rep, off, dumpRuns(fast.Runs), dumpRuns(words.Runs))
				}
				checkCovers(t, &fast, off, cur, twin)
				checkCanonical(t, &exact, off, cur, twin)
			}
		}
	}
}

func TestDiffCoalescesAcrossCalls(t *testing.T) {
	const page = 4096
	twin := make([]byte, 3*page)
	cur := slices.Clone(twin)
	// A run straddling pages 0 and 1, and one straddling 1 and 2 that
	// covers the whole of page 1.
	for i := page - 3; i < 2*page+5; i++ {
		cur[i] = 1
	}
	var d Delta
	for p := range 3 {
		Diff(&d, uint64(p*page), cur[p*page:(p+1)*page], twin[p*page:(p+1)*page])
	}
	// Diff covers whole words: from page-8 to 2*page+8.
	if len(d.Runs) != 1 || d.Runs[0].Off != page-8 || len(d.Runs[0].Data) != page+16 {
		t.Fatalf("runs %s, want one run at %#x of %d bytes", dumpRuns(d.Runs), page-8, page+16)
	}
	var x Delta
	for p := range 3 {
		diffReference(&x, uint64(p*page), cur[p*page:(p+1)*page], twin[p*page:(p+1)*page])
	}
	if len(x.Runs) != 1 || x.Runs[0].Off != page-3 || len(x.Runs[0].Data) != page+8 {
		t.Fatalf("exact runs %s, want one run at %#x of %d bytes", dumpRuns(x.Runs), page-3, page+8)
	}
	// Non-consecutive pages do not coalesce.
	var e Delta
	Diff(&e, 0, cur[:page], twin[:page])
	Diff(&e, 2*page, cur[2*page:], twin[2*page:])
	if len(e.Runs) != 2 {
		t.Fatalf("runs %s, want two", dumpRuns(e.Runs))
	}
}

func TestDiffCopiesAndOwnsOneBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var d Delta
	var want []Run
	for p := range 64 {
		cur, twin := pattern(rng, 4096, func(int) bool { return rng.IntN(20) == 0 })
		Diff(&d, uint64(p)*8192, cur, twin)
		clear(cur) // cur is live memory: the delta must not alias it
		_ = want
	}
	var ref Delta
	rng = rand.New(rand.NewPCG(3, 4))
	for p := range 64 {
		cur, twin := pattern(rng, 4096, func(int) bool { return rng.IntN(20) == 0 })
		diffWords(&ref, uint64(p)*8192, cur, twin)
	}
	if !equalRuns(d.Runs, ref.Runs) {
		t.Fatal("delta changed when cur changed")
	}
	// All data lives in d.buf, in order.
	pos := 0
	for i, r := range d.Runs {
		if &r.Data[0] != &d.buf[pos] {
			t.Fatalf("run %d does not point into the delta's buffer at %d", i, pos)
		}
		pos += len(r.Data)
	}
	if d.Len() != pos {
		t.Fatalf("Len = %d, want %d", d.Len(), pos)
	}
}

func TestDiffMismatchedLengthsAndOverflow(t *testing.T) {
	var d Delta
	Diff(&d, 0, []byte{1, 2, 3}, []byte{0, 0}) // compares 2 bytes
	if len(d.Runs) != 1 || len(d.Runs[0].Data) != 2 {
		t.Fatalf("runs %s", dumpRuns(d.Runs))
	}
	d.Reset(1, 0)
	for _, diff := range []func(*Delta, uint64, []byte, []byte){Diff, diffReference} {
		d.Reset(1, 0)
		diff(&d, ^uint64(0)-1, []byte{1, 1, 1, 1}, []byte{0, 0, 0, 0})
		if len(d.Runs) != 1 || d.Runs[0].Off != ^uint64(0)-1 || len(d.Runs[0].Data) != 1 {
			t.Fatalf("runs %s", dumpRuns(d.Runs))
		}
	}
	Diff(nil, 0, []byte{1}, []byte{0}) // no panic
}

func TestAppendFullAndReset(t *testing.T) {
	var d Delta
	AppendFull(&d, 0, []byte{1, 2})
	AppendFull(&d, 2, []byte{3})
	AppendFull(&d, 10, []byte{4})
	AppendFull(&d, 11, nil)
	want := []Run{{0, []byte{1, 2, 3}}, {10, []byte{4}}}
	if !equalRuns(d.Runs, want) {
		t.Fatalf("runs %s", dumpRuns(d.Runs))
	}
	d.Reset(7, 3)
	if d.Region != 7 || d.Node != 3 || len(d.Runs) != 0 || d.Len() != 0 {
		t.Fatalf("after Reset: %+v", d)
	}
	AppendFull(&d, 5, []byte{9})
	if !equalRuns(d.Runs, []Run{{5, []byte{9}}}) {
		t.Fatalf("runs %s", dumpRuns(d.Runs))
	}
}

func TestAppendAfterCallerInstalledRuns(t *testing.T) {
	foreign := []byte{1, 2, 3}
	d := Delta{Runs: []Run{{Off: 0, Data: foreign}}}
	AppendFull(&d, 3, []byte{4}) // touches the foreign run
	if !equalRuns(d.Runs, []Run{{0, []byte{1, 2, 3, 4}}}) {
		t.Fatalf("runs %s", dumpRuns(d.Runs))
	}
	foreign[0] = 99
	if d.Runs[0].Data[0] != 1 {
		t.Fatal("delta still aliases caller memory after coalescing")
	}
}

func TestMergeDisjointAndEqualOverlap(t *testing.T) {
	a := &Delta{Region: 3, Node: 0}
	b := &Delta{Region: 3, Node: 1}
	c := &Delta{Region: 3, Node: 2}
	AppendFull(a, 0, []byte{1, 2, 3})
	AppendFull(a, 20, []byte{7})
	AppendFull(b, 3, []byte{4, 5}) // touches a's first run
	AppendFull(b, 10, []byte{9})
	AppendFull(c, 1, []byte{2, 3, 4}) // overlaps a and b with equal values
	AppendFull(c, 30, []byte{8})
	m, err := MergeBase(3, nil, a, nil, b, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []Run{{0, []byte{1, 2, 3, 4, 5}}, {10, []byte{9}}, {20, []byte{7}}, {30, []byte{8}}}
	if !equalRuns(m.Runs, want) || m.Node != Merged || m.Region != 3 {
		t.Fatalf("merged %+v: %s", m, dumpRuns(m.Runs))
	}
	a.Runs[0].Data[0] = 42
	if m.Runs[0].Data[0] != 1 {
		t.Fatal("merge result aliases its input")
	}
	if m, err := MergeBase(3, nil); err != nil || len(m.Runs) != 0 || m.Node != Merged {
		t.Fatalf("MergeBase(3, nil) = %+v, %v", m, err)
	}
}

func TestMergeConflict(t *testing.T) {
	a := &Delta{Region: 5, Node: 1}
	b := &Delta{Region: 5, Node: 2}
	AppendFull(a, 0x1000, []byte{1, 2, 3, 4})
	AppendFull(b, 0x1002, []byte{3, 9}) // 0x1002 agrees, 0x1003 conflicts
	for _, order := range [][]*Delta{{a, b}, {b, a}} {
		_, err := MergeBase(5, nil, order...)
		var ce *ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
			t.Fatalf("err = %v, want a *ConflictError", err)
		}
		if ce.Region != 5 || ce.Offset != 0x1003 {
			t.Fatalf("conflict %+v, want region 5 offset 0x1003", ce)
		}
		nodes := []int{ce.NodeA, ce.NodeB}
		slices.Sort(nodes)
		if !slices.Equal(nodes, []int{1, 2}) {
			t.Fatalf("conflict names nodes %v, want 1 and 2", nodes)
		}
		// The region is in ce.Region; naming it is the caller's context.
		for _, s := range []string{"0x1003", "node 1", "node 2"} {
			if strings.Count(err.Error(), s) != 1 {
				t.Errorf("message %q does not name %q once", err, s)
			}
		}
		if strings.Contains(err.Error(), "region") || strings.Contains(err.Error(), "merge") {
			t.Errorf("message %q repeats its caller's context", err)
		}
	}
}

func TestMergeBaseIntoReusesStorage(t *testing.T) {
	a := &Delta{Region: 2, Node: 0}
	b := &Delta{Region: 2, Node: 1}
	AppendFull(a, 0, []byte{1, 2})
	AppendFull(b, 4, []byte{3})
	var m Delta
	AppendFull(&m, 100, []byte{9, 9, 9})
	for range 3 {
		if err := MergeBaseInto(&m, 2, nil, a, b); err != nil {
			t.Fatal(err)
		}
		if !equalRuns(m.Runs, []Run{{0, []byte{1, 2}}, {4, []byte{3}}}) || m.Node != Merged || m.Region != 2 {
			t.Fatalf("merged %+v", m)
		}
	}
	if err := MergeBaseInto(&m, 2, nil, a, &m); !errors.Is(err, ErrInvalid) {
		t.Fatalf("dst among inputs: err = %v", err)
	}
	if err := MergeBaseInto(nil, 2, nil, a); !errors.Is(err, ErrInvalid) {
		t.Fatalf("nil dst: err = %v", err)
	}
	c := &Delta{Region: 2, Node: 2}
	AppendFull(c, 1, []byte{7})
	if err := MergeBaseInto(&m, 2, nil, a, c); !errors.Is(err, ErrConflict) || len(m.Runs) != 0 {
		t.Fatalf("conflict: err = %v, runs %s", err, dumpRuns(m.Runs))
	}
}

func TestMergeRejectsInvalid(t *testing.T) {
	a := &Delta{Region: 1, Node: 0, Runs: []Run{{10, []byte{1}}, {5, []byte{2}}}}
	if _, err := MergeBase(1, nil, a); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unsorted: err = %v", err)
	}
	b := &Delta{Region: 1, Node: 0, Runs: []Run{{0, []byte{1, 2}}, {1, []byte{2}}}}
	if _, err := MergeBase(1, nil, b); !errors.Is(err, ErrInvalid) {
		t.Fatalf("overlapping: err = %v", err)
	}
	c := &Delta{Region: 2, Node: 0}
	if _, err := MergeBase(1, nil, c); !errors.Is(err, ErrInvalid) {
		t.Fatalf("other region: err = %v", err)
	}
	d := &Delta{Region: 1, Runs: []Run{{^uint64(0), []byte{1, 2}}}}
	if _, err := MergeBase(1, nil, d); !errors.Is(err, ErrInvalid) {
		t.Fatalf("overflow: err = %v", err)
	}
}

// TestMergeRandom merges random non-conflicting deltas (every node writes
// the truth's values, and sometimes rewrites the entry value) and checks the
// result against the truth: [Diff]'s deltas with [MergeBase], and the
// byte-exact deltas of diffReference with MergeBase without and with a base.
func TestMergeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for rep := range 200 {
		n := 1 + rng.IntN(5000)
		twin := make([]byte, n)
		if rep%2 == 1 {
			for i := range twin {
				twin[i] = byte(rng.IntN(4)) // entry values that writes often repeat
			}
		}
		truth := slices.Clone(twin)
		written := make([]bool, n)
		nodes := 1 + rng.IntN(6)
		words := make([]*Delta, nodes)
		exact := make([]*Delta, nodes)
		curs := make([][]byte, nodes)
		for k := range nodes {
			cur := slices.Clone(twin)
			for range rng.IntN(40) {
				lo := rng.IntN(n)
				hi := min(n, lo+1+rng.IntN(300))
				stride := 1 + rng.IntN(3) // 2 and 3 interleave with other nodes
				for i := lo; i < hi; i += stride {
					if !written[i] {
						written[i] = true
						truth[i] = byte(rng.IntN(256)) // may equal the entry value
					}
					cur[i] = truth[i]
				}
			}
			curs[k] = cur
			words[k] = &Delta{Region: 9, Node: k}
			exact[k] = &Delta{Region: 9, Node: k}
			for p := 0; p < n; p += 512 {
				e := min(n, p+512)
				Diff(words[k], uint64(p), cur[p:e], twin[p:e])
				diffReference(exact[k], uint64(p), cur[p:e], twin[p:e])
			}
		}
		mw, err := MergeBase(9, sliceBase(twin), words...)
		if err != nil {
			t.Fatalf("rep %d: MergeBase of Diff deltas: %v", rep, err)
		}
		me, err := MergeBase(9, nil, exact...)
		if err != nil {
			t.Fatalf("rep %d: MergeBase without base of exact deltas: %v", rep, err)
		}
		mb, err := MergeBase(9, sliceBase(twin), exact...)
		if err != nil || !equalRuns(mb.Runs, me.Runs) {
			t.Fatalf("rep %d: MergeBase of exact deltas = %v, %s\nwant %s", rep, err, dumpRuns(mb.Runs), dumpRuns(me.Runs))
		}
		checkCanonical(t, me, 0, truth, twin)
		checkCovers(t, mw, 0, truth, twin)
		checkMergeRef(t, rep, mw, sliceBase(twin), words, n)
		checkMergeRef(t, rep, me, nil, exact, n)
		for _, m := range []*Delta{mw, me} {
			// Every node, from its own state, ends with the truth.
			for k, cur := range append(curs, twin) {
				got := slices.Clone(cur)
				if err := m.Apply(got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, truth) {
					t.Fatalf("rep %d: merged delta on node %d does not reproduce the truth", rep, k)
				}
			}
		}
	}
}

// TestMergeBaseCarriedVsWrite: a byte that one delta carries along with the
// entry value and another delta writes takes the written value, in either
// order, while MergeBase without a base calls it a conflict.
func TestMergeBaseCarriedVsWrite(t *testing.T) {
	entry := []byte{10, 11, 12, 13, 14, 15, 16, 17}
	a := &Delta{Region: 1, Node: 0}
	b := &Delta{Region: 1, Node: 1}
	AppendFull(a, 0, []byte{1, 2, 12, 13}) // writes 0 and 1, carries 2 and 3
	AppendFull(b, 2, []byte{12, 3, 4, 15}) // carries 2 and 5, writes 3 and 4
	want := []Run{{0, []byte{1, 2, 12, 3, 4, 15}}}
	for _, order := range [][]*Delta{{a, b}, {b, a}} {
		m, err := MergeBase(1, sliceBase(entry), order...)
		if err != nil || !equalRuns(m.Runs, want) {
			t.Fatalf("MergeBase = %v, %s", err, dumpRuns(m.Runs))
		}
		if _, err := MergeBase(1, nil, order...); !errors.Is(err, ErrConflict) {
			t.Fatalf("MergeBase without base: err = %v, want a conflict", err)
		}
	}
	// A base that does not hold an overlapping offset is an error.
	if _, err := MergeBase(1, sliceBase(entry[:3]), a, b); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrConflict) {
		t.Fatalf("short base: err = %v", err)
	}
	// The base is not consulted where runs do not overlap or agree.
	calls := 0
	counting := func(off uint64) []byte { calls++; return entry[off:] }
	c := &Delta{Region: 1, Node: 2}
	AppendFull(c, 6, []byte{15, 7}) // agrees with b at 5
	if _, err := MergeBase(1, counting, b, c); err != nil || calls != 0 {
		t.Fatalf("MergeBase = %v after %d base calls, want none", err, calls)
	}
}

// TestMergeBaseConflict: two deltas that write different values (neither
// the entry value) to one byte conflict, and the error names both.
func TestMergeBaseConflict(t *testing.T) {
	entry := make([]byte, 0x2000)
	a := &Delta{Region: 5, Node: 1}
	b := &Delta{Region: 5, Node: 2}
	AppendFull(a, 0x1000, []byte{1, 2, 0, 4, 0}) // carries 0x1002 and 0x1004
	AppendFull(b, 0x1002, []byte{7, 9, 5})       // writes 0x1002, conflicts at 0x1003
	for _, order := range [][]*Delta{{a, b}, {b, a}} {
		_, err := MergeBase(5, sliceBase(entry), order...)
		var ce *ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
			t.Fatalf("err = %v, want a *ConflictError", err)
		}
		if ce.Region != 5 || ce.Offset != 0x1003 {
			t.Fatalf("conflict %+v, want region 5 offset 0x1003", ce)
		}
		got := map[int]byte{ce.NodeA: ce.ValueA, ce.NodeB: ce.ValueB}
		if len(got) != 2 || got[1] != 4 || got[2] != 9 {
			t.Fatalf("conflict %+v, want node 1 wrote 4 and node 2 wrote 9", ce)
		}
		// The region is in ce.Region; naming it is the caller's context.
		for _, s := range []string{"0x1003", "node 1", "node 2"} {
			if strings.Count(err.Error(), s) != 1 {
				t.Errorf("message %q does not name %q once", err, s)
			}
		}
		if strings.Contains(err.Error(), "region") || strings.Contains(err.Error(), "merge") {
			t.Errorf("message %q repeats its caller's context", err)
		}
	}
}

// TestMergeBaseThreeDeltas covers one byte by three deltas in every order.
func TestMergeBaseThreeDeltas(t *testing.T) {
	const e = 50 // the entry value of every byte
	entry := bytes.Repeat([]byte{e}, 16)
	cases := []struct {
		name     string
		values   [3]byte
		want     byte
		conflict [2]int // nodes, if a conflict
	}{
		{"all carried", [3]byte{e, e, e}, e, [2]int{}},
		{"one writer", [3]byte{e, 7, e}, 7, [2]int{}},
		{"two agreeing writers", [3]byte{7, e, 7}, 7, [2]int{}},
		{"three agreeing writers", [3]byte{7, 7, 7}, 7, [2]int{}},
		{"two disagreeing writers", [3]byte{7, e, 8}, 0, [2]int{0, 2}},
		{"agreeing pair and another", [3]byte{7, 7, 8}, 0, [2]int{0, 2}},
	}
	perms := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, tc := range cases {
		for _, p := range perms {
			ds := make([]*Delta, 3)
			for i, k := range p {
				ds[i] = &Delta{Region: 2, Node: k}
				// Runs of different extents around offset 8.
				AppendFull(ds[i], uint64(7-k), append(bytes.Repeat([]byte{e}, 1+k), tc.values[k]))
			}
			m, err := MergeBase(2, sliceBase(entry), ds...)
			if tc.conflict != [2]int{} {
				var ce *ConflictError
				if !errors.As(err, &ce) || ce.Offset != 8 {
					t.Fatalf("%s %v: err = %v, want a conflict at 8", tc.name, p, err)
				}
				// Node 1 may be named when it wrote 7 like node 0.
				a, b := min(ce.NodeA, ce.NodeB), max(ce.NodeA, ce.NodeB)
				if !(a == 0 && b == 2 || tc.values[1] != e && a == 1 && b == 2) ||
					ce.ValueA != tc.values[ce.NodeA] || ce.ValueB != tc.values[ce.NodeB] {
					t.Fatalf("%s %v: conflict %+v", tc.name, p, ce)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %v: %v", tc.name, p, err)
			}
			want := []Run{{5, []byte{e, e, e, tc.want}}}
			if !equalRuns(m.Runs, want) {
				t.Fatalf("%s %v: runs %s, want %s", tc.name, p, dumpRuns(m.Runs), dumpRuns(want))
			}
		}
	}
}

func TestPagedBase(t *testing.T) {
	const ps = 8
	arena := make([]byte, 3*ps)
	for i := range arena {
		arena[i] = byte(i)
	}
	page := func(p int) []byte {
		if p < 0 || p >= 3 {
			return nil
		}
		return arena[p*ps : (p+1)*ps]
	}
	base := PagedBase(ps, page)
	for off := range uint64(len(arena)) {
		b := base(off)
		if len(b) != ps-int(off%ps) || b[0] != byte(off) {
			t.Fatalf("base(%d) = %v", off, b)
		}
	}
	if b := base(uint64(len(arena))); b != nil {
		t.Fatalf("base past the arena = %v", b)
	}
	if b := base(^uint64(0)); b != nil {
		t.Fatalf("base(2^64-1) = %v", b)
	}
	if b := PagedBase(0, page)(0); b != nil {
		t.Fatalf("page size 0: %v", b)
	}
	// A run overlapping across a page boundary resolves against both pages.
	a := &Delta{Region: 1, Node: 0}
	b := &Delta{Region: 1, Node: 1}
	AppendFull(a, 6, []byte{99, 7, 8, 9})  // writes 6, carries 7..9
	AppendFull(b, 6, []byte{6, 98, 97, 9}) // carries 6 and 9, writes 7, 8
	m, err := MergeBase(1, base, a, b)
	if err != nil || !equalRuns(m.Runs, []Run{{6, []byte{99, 98, 97, 9}}}) {
		t.Fatalf("MergeBase = %v, %s", err, dumpRuns(m.Runs))
	}
	// A page the base does not hold is an error, not a conflict.
	c := &Delta{Region: 1, Node: 0}
	e := &Delta{Region: 1, Node: 1}
	AppendFull(c, 8, bytes.Repeat([]byte{1}, 8))
	AppendFull(e, 8, bytes.Repeat([]byte{2}, 8))
	holes := PagedBase(ps, func(p int) []byte { return nil })
	if _, err := MergeBase(1, holes, c, e); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrConflict) {
		t.Fatalf("base without the page: err = %v", err)
	}
}

// TestDiffInt64 is the matrix product's case: small int64 values over a
// zero twin give one run per written range, across pages, where the
// byte-exact diff gives one per element.
func TestDiffInt64(t *testing.T) {
	const page = 4096
	twin := make([]byte, 4*page)
	cur := slices.Clone(twin)
	lo, hi := 1000, 3*page+808 // written elements [lo/8, hi/8)
	for i := lo; i < hi; i += 8 {
		binary.LittleEndian.PutUint64(cur[i:], uint64(i%1000+1))
	}
	var d, x Delta
	for p := 0; p < len(cur); p += page {
		Diff(&d, uint64(p), cur[p:p+page], twin[p:p+page])
		diffReference(&x, uint64(p), cur[p:p+page], twin[p:p+page])
	}
	if len(d.Runs) != 1 || d.Runs[0].Off != uint64(lo) || d.Runs[0].End() != uint64(hi) {
		t.Fatalf("Diff: %d runs, first %#x, want one run [%#x, %#x)", len(d.Runs), d.Runs[0].Off, lo, hi)
	}
	if len(x.Runs) != (hi-lo)/8 {
		t.Fatalf("diffReference: %d runs, want %d", len(x.Runs), (hi-lo)/8)
	}
}

func TestApplyOutOfBoundsLeavesMemoryUntouched(t *testing.T) {
	mem := make([]byte, 64)
	for i := range mem {
		mem[i] = byte(i)
	}
	orig := slices.Clone(mem)
	d := &Delta{Runs: []Run{{0, []byte{0xAA}}, {60, []byte{1, 2, 3, 4, 5}}}}
	err := d.Apply(mem)
	var be *BoundsError
	if !errors.As(err, &be) || !errors.Is(err, ErrOutOfBounds) {
		t.Fatalf("err = %v, want *BoundsError", err)
	}
	if be.Offset != 60 || be.Length != 5 || be.Size != 64 {
		t.Fatalf("bounds error %+v", be)
	}
	for _, s := range []string{"0x3c", "5", "0x40"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q does not contain %q", err, s)
		}
	}
	if !bytes.Equal(mem, orig) {
		t.Fatal("memory changed by a failed Apply")
	}
	overflow := &Delta{Runs: []Run{{^uint64(0), []byte{1, 2}}}}
	if err := overflow.Apply(mem); !errors.As(err, &be) {
		t.Fatalf("overflowing run: err = %v", err)
	}
	unsorted := &Delta{Runs: []Run{{10, []byte{1}}, {5, []byte{2}}}}
	if err := unsorted.Apply(mem); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unsorted: err = %v", err)
	}
	if !bytes.Equal(mem, orig) {
		t.Fatal("memory changed by a failed Apply")
	}
	ok := &Delta{Runs: []Run{{0, []byte{0xAA}}, {63, []byte{0xBB}}}}
	if err := ok.Apply(mem); err != nil || mem[0] != 0xAA || mem[63] != 0xBB {
		t.Fatalf("Apply = %v, mem %x", err, mem)
	}
	var nilDelta *Delta
	if err := nilDelta.Apply(mem); err != nil || nilDelta.Len() != 0 {
		t.Fatal("nil delta")
	}
}

// checkMergeRef checks that MergeBaseRef of ds covers the bytes of want
// (MergeBase's result) with the same values, in sorted disjoint runs, and
// leaves its inputs as they were.
func checkMergeRef(t *testing.T, rep int, want *Delta, base Base, ds []*Delta, n int) {
	t.Helper()
	before := make([][]byte, len(ds))
	for k, d := range ds {
		before[k] = slices.Concat(runData(d.Runs)...)
	}
	var got Delta
	if err := MergeBaseRef(&got, 9, base, ds...); err != nil {
		t.Fatalf("rep %d: MergeBaseRef: %v", rep, err)
	}
	if _, err := checkOrder(got.Runs); err != nil {
		t.Fatalf("rep %d: MergeBaseRef: %v", rep, err)
	}
	flat := func(rs []Run) ([]byte, []bool) {
		v, c := make([]byte, n), make([]bool, n)
		for _, r := range rs {
			for i, b := range r.Data {
				v[int(r.Off)+i], c[int(r.Off)+i] = b, true
			}
		}
		return v, c
	}
	gv, gc := flat(got.Runs)
	wv, wc := flat(want.Runs)
	if !bytes.Equal(gv, wv) || !slices.Equal(gc, wc) {
		t.Fatalf("rep %d: MergeBaseRef differs from MergeBase:\n%s\nwant %s", rep, dumpRuns(got.Runs), dumpRuns(want.Runs))
	}
	for k, d := range ds {
		if !bytes.Equal(slices.Concat(runData(d.Runs)...), before[k]) {
			t.Fatalf("rep %d: MergeBaseRef modified input %d", rep, k)
		}
	}
}

func runData(rs []Run) [][]byte {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r.Data
	}
	return out
}

// TestReserve: the room Reserve makes takes the runs appended next without
// moving the data, the runs are what was appended, and a Reserve that needs
// no new buffer returns no room to prepare.
func TestReserve(t *testing.T) {
	d := &Delta{}
	d.Reset(1, 0)
	Diff(d, 0, []byte{1, 2, 3, 4, 5, 6, 7, 8}, make([]byte, 8))
	room := d.Reserve(3 * 4096)
	if len(room) < 3*4096 {
		t.Fatalf("Reserve(%d) made %d bytes of room", 3*4096, len(room))
	}
	if again := d.Reserve(3 * 4096); again != nil {
		t.Fatalf("Reserve with the room there already returned %d bytes of fresh room", len(again))
	}
	first := &d.Runs[0].Data[0]
	cur := make([]byte, 4096)
	for p := 1; p <= 3; p++ {
		for i := range cur {
			cur[i] = byte(p + i)
		}
		Diff(d, uint64(p*8192), cur, make([]byte, 4096))
	}
	if &d.Runs[0].Data[0] != first {
		t.Fatal("the data moved although Reserve made room for it")
	}
	if len(d.Runs) != 4 || d.Len() != 8+3*4096 {
		t.Fatalf("%d runs, %d bytes; want 4 runs, %d bytes", len(d.Runs), d.Len(), 8+3*4096)
	}
	for p := 1; p <= 3; p++ {
		r := d.Runs[p]
		if r.Off != uint64(p*8192) || len(r.Data) != 4096 || r.Data[0] != byte(p) || r.Data[4095] != byte(p+4095) {
			t.Fatalf("run %d: offset %d, %d bytes, want offset %d with the page written", p, r.Off, len(r.Data), p*8192)
		}
	}
	if d.Reserve(0) != nil || (*Delta)(nil).Reserve(10) != nil {
		t.Fatal("Reserve of nothing, or on a nil delta, returned room")
	}
}

// TestMergeUpdates: two deltas that both changed one byte to the same value
// merge under MergeBaseInto (an agreement) and conflict under
// MergeUpdatesInto (two updates, each from the entry value), naming both
// nodes; bytes both carried unchanged, and disjoint writes, do not.
func TestMergeUpdates(t *testing.T) {
	entry := []byte{0, 0, 0, 0, 9, 9, 9, 9}
	base := PagedBase(len(entry), func(p int) []byte {
		if p == 0 {
			return entry
		}
		return nil
	})
	a := &Delta{Region: 3, Node: 0, Runs: []Run{{Off: 0, Data: []byte{1, 0, 7, 9}}}}
	b := &Delta{Region: 3, Node: 2, Runs: []Run{{Off: 2, Data: []byte{7, 0, 9, 5}}}}
	var out Delta
	if err := MergeBaseInto(&out, 3, base, a, b); err != nil {
		t.Fatalf("MergeBaseInto: %v", err)
	}
	err := MergeUpdatesInto(&out, 3, base, a, b)
	var ce *ConflictError
	if !errors.As(err, &ce) || !ce.Same || ce.Offset != 2 || ce.NodeA != 0 || ce.NodeB != 2 || ce.ValueB != 7 {
		t.Fatalf("MergeUpdatesInto: %v (%+v), want both nodes 0 and 2 updating offset 2", err, ce)
	}
	if !strings.Contains(err.Error(), "both updated") {
		t.Errorf("error %q does not say both updated", err)
	}
	// Overlapping at offset 3 only, which node 2 carried with its entry
	// value: no conflict, node 0's write wins.
	c := &Delta{Region: 3, Node: 2, Runs: []Run{{Off: 3, Data: []byte{0, 9, 5}}}}
	if err := MergeUpdatesInto(&out, 3, base, a, c); err != nil {
		t.Fatalf("MergeUpdatesInto, disjoint writes: %v", err)
	}
	want := []byte{1, 0, 7, 9, 9, 5}
	if len(out.Runs) != 1 || !bytes.Equal(out.Runs[0].Data, want) {
		t.Errorf("merged %+v, want one run %v", out.Runs, want)
	}
	if err := MergeUpdatesRef(&out, 3, nil, a, c); err == nil {
		t.Error("MergeUpdatesRef without a base: no error")
	}
}

// TestMergeLocations checks the variable rule: two nodes that write
// different bytes of one variable conflict (Mixed), while different
// variables of one word merge as before; both the word path (a base with
// whole words) and the byte path (a base that gives one byte at a time).
func TestMergeLocations(t *testing.T) {
	entry := make([]byte, 16)
	bases := map[string]Base{
		"words": PagedBase(len(entry), func(p int) []byte {
			if p == 0 {
				return entry
			}
			return nil
		}),
		"bytes": func(off uint64) []byte {
			if off < uint64(len(entry)) {
				return entry[off : off+1]
			}
			return nil
		},
	}
	int64s := func(uint64) uint8 { return 0x01 }
	int32s := func(uint64) uint8 { return 0x11 }
	bytesOnly := func(uint64) uint8 { return 0xff }
	for name, base := range bases {
		// Node 0 wrote 256 into the int64 at offset 8, node 2 wrote 1: the
		// byte merge gives 257, which neither wrote.
		a := &Delta{Region: 4, Node: 0, Runs: []Run{{Off: 8, Data: []byte{0, 1, 0, 0, 0, 0, 0, 0}}}}
		b := &Delta{Region: 4, Node: 2, Runs: []Run{{Off: 8, Data: []byte{1, 0, 0, 0, 0, 0, 0, 0}}}}
		var out Delta
		err := MergeRuleInto(&out, 4, base, Rule{Locations: int64s}, a, b)
		var ce *ConflictError
		if !errors.As(err, &ce) || !ce.Mixed || ce.Offset != 8 || ce.NodeA != 0 || ce.NodeB != 2 {
			t.Fatalf("%s: int64: %v (%+v), want nodes 0 and 2 writing different bytes at offset 8", name, err, ce)
		}
		if !strings.Contains(err.Error(), "different bytes of the variable") {
			t.Errorf("%s: error %q does not say what was mixed", name, err)
		}
		if err := MergeRuleRef(&out, 4, base, Rule{Locations: int64s}, b, a); !errors.As(err, &ce) || !ce.Mixed || ce.NodeA != 2 || ce.NodeB != 0 {
			t.Errorf("%s: int64, other order: %v", name, err)
		}
		// The same bytes in a []byte, or in two int32s: different
		// variables, merged byte by byte.
		for lname, locs := range map[string]Locations{"bytes": bytesOnly, "int32s": int32s, "none": nil} {
			c := &Delta{Region: 4, Node: 2, Runs: []Run{{Off: 8, Data: []byte{0, 0, 0, 0, 5, 0, 0, 0}}}}
			if err := MergeRuleInto(&out, 4, base, Rule{Locations: locs}, a, c); err != nil {
				t.Fatalf("%s: %s: %v", name, lname, err)
			}
			want := []byte{0, 1, 0, 0, 5, 0, 0, 0}
			if len(out.Runs) != 1 || out.Runs[0].Off != 8 || !bytes.Equal(out.Runs[0].Data, want) {
				t.Errorf("%s: %s: merged %+v, want %v at 8", name, lname, out.Runs, want)
			}
		}
		// One node's write covering the other's (both wrote byte 1 the
		// same, node 2 also byte 0): node 2's value is whole, no conflict.
		d := &Delta{Region: 4, Node: 2, Runs: []Run{{Off: 8, Data: []byte{1, 1, 0, 0, 0, 0, 0, 0}}}}
		if err := MergeRuleInto(&out, 4, base, Rule{Locations: int64s}, a, d); err != nil {
			t.Errorf("%s: a write covering another: %v", name, err)
		}
		// Mixed int32 in the word's second half.
		e := &Delta{Region: 4, Node: 1, Runs: []Run{{Off: 8, Data: []byte{0, 0, 0, 0, 0, 0, 7, 0}}}}
		f := &Delta{Region: 4, Node: 3, Runs: []Run{{Off: 8, Data: []byte{0, 0, 0, 0, 0, 0, 0, 7}}}}
		if err := MergeRuleInto(&out, 4, base, Rule{Locations: int32s}, e, f); !errors.As(err, &ce) || !ce.Mixed || ce.Offset != 12 || ce.NodeA != 1 || ce.NodeB != 3 {
			t.Errorf("%s: int32 at 12: %v, want a mixed conflict of nodes 1 and 3 at offset 12", name, err)
		}
	}
	if err := MergeRuleInto(new(Delta), 4, nil, Rule{Locations: int64s}); err == nil {
		t.Error("locations without a base: no error")
	}
}
