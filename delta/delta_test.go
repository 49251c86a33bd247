package delta

import (
	"bytes"
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

// checkCanonical verifies the invariants of a diff of cur against twin at
// offset base: runs sorted, separated by at least one byte, made only of
// changed bytes, and covering every changed byte.
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
				var fast, ref Delta
				Diff(&fast, off, cur, twin)
				DiffReference(&ref, off, cur, twin)
				if !equalRuns(fast.Runs, ref.Runs) {
					t.Fatalf("n=%d %s rep %d:\nDiff         %s\nDiffReference %s", n, name, rep, dumpRuns(fast.Runs), dumpRuns(ref.Runs))
				}
				checkCanonical(t, &fast, off, cur, twin)
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
	if len(d.Runs) != 1 || d.Runs[0].Off != page-3 || len(d.Runs[0].Data) != page+8 {
		t.Fatalf("runs %s, want one run at %#x of %d bytes", dumpRuns(d.Runs), page-3, page+8)
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
		DiffReference(&ref, uint64(p)*8192, cur, twin)
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
	Diff(&d, ^uint64(0)-1, []byte{1, 1, 1, 1}, []byte{0, 0, 0, 0})
	if len(d.Runs) != 1 || d.Runs[0].Off != ^uint64(0)-1 || len(d.Runs[0].Data) != 1 {
		t.Fatalf("runs %s", dumpRuns(d.Runs))
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
	m, err := Merge(3, a, nil, b, c)
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
	if m, err := Merge(3); err != nil || len(m.Runs) != 0 || m.Node != Merged {
		t.Fatalf("Merge() = %+v, %v", m, err)
	}
}

func TestMergeConflict(t *testing.T) {
	a := &Delta{Region: 5, Node: 1}
	b := &Delta{Region: 5, Node: 2}
	AppendFull(a, 0x1000, []byte{1, 2, 3, 4})
	AppendFull(b, 0x1002, []byte{3, 9}) // 0x1002 agrees, 0x1003 conflicts
	for _, order := range [][]*Delta{{a, b}, {b, a}} {
		_, err := Merge(5, order...)
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
		for _, s := range []string{"region 5", "0x1003", "node 1", "node 2"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("message %q does not name %q", err, s)
			}
		}
	}
}

func TestMergeIntoReusesStorage(t *testing.T) {
	a := &Delta{Region: 2, Node: 0}
	b := &Delta{Region: 2, Node: 1}
	AppendFull(a, 0, []byte{1, 2})
	AppendFull(b, 4, []byte{3})
	var m Delta
	AppendFull(&m, 100, []byte{9, 9, 9})
	for range 3 {
		if err := MergeInto(&m, 2, a, b); err != nil {
			t.Fatal(err)
		}
		if !equalRuns(m.Runs, []Run{{0, []byte{1, 2}}, {4, []byte{3}}}) || m.Node != Merged || m.Region != 2 {
			t.Fatalf("merged %+v", m)
		}
	}
	if err := MergeInto(&m, 2, a, &m); !errors.Is(err, ErrInvalid) {
		t.Fatalf("dst among inputs: err = %v", err)
	}
	if err := MergeInto(nil, 2, a); !errors.Is(err, ErrInvalid) {
		t.Fatalf("nil dst: err = %v", err)
	}
	c := &Delta{Region: 2, Node: 2}
	AppendFull(c, 1, []byte{7})
	if err := MergeInto(&m, 2, a, c); !errors.Is(err, ErrConflict) || len(m.Runs) != 0 {
		t.Fatalf("conflict: err = %v, runs %s", err, dumpRuns(m.Runs))
	}
}

func TestMergeRejectsInvalid(t *testing.T) {
	a := &Delta{Region: 1, Node: 0, Runs: []Run{{10, []byte{1}}, {5, []byte{2}}}}
	if _, err := Merge(1, a); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unsorted: err = %v", err)
	}
	b := &Delta{Region: 1, Node: 0, Runs: []Run{{0, []byte{1, 2}}, {1, []byte{2}}}}
	if _, err := Merge(1, b); !errors.Is(err, ErrInvalid) {
		t.Fatalf("overlapping: err = %v", err)
	}
	c := &Delta{Region: 2, Node: 0}
	if _, err := Merge(1, c); !errors.Is(err, ErrInvalid) {
		t.Fatalf("other region: err = %v", err)
	}
	d := &Delta{Region: 1, Runs: []Run{{^uint64(0), []byte{1, 2}}}}
	if _, err := Merge(1, d); !errors.Is(err, ErrInvalid) {
		t.Fatalf("overflow: err = %v", err)
	}
}

// TestMergeRandom merges random non-conflicting deltas (every node writes
// the truth's values) and checks the result against the truth.
func TestMergeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for rep := range 50 {
		n := 1 + rng.IntN(5000)
		twin := make([]byte, n)
		truth := slices.Clone(twin)
		nodes := 1 + rng.IntN(6)
		ds := make([]*Delta, nodes)
		for k := range ds {
			cur := slices.Clone(twin)
			for range rng.IntN(40) {
				lo := rng.IntN(n)
				hi := min(n, lo+1+rng.IntN(300))
				for i := lo; i < hi; i++ {
					if truth[i] == 0 {
						truth[i] = byte(1 + rng.IntN(255))
					}
					cur[i] = truth[i]
				}
			}
			ds[k] = &Delta{Region: 9, Node: k}
			for p := 0; p < n; p += 512 {
				e := min(n, p+512)
				Diff(ds[k], uint64(p), cur[p:e], twin[p:e])
			}
		}
		m, err := Merge(9, ds...)
		if err != nil {
			t.Fatalf("rep %d: %v", rep, err)
		}
		got := slices.Clone(twin)
		if err := m.Apply(got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, truth) {
			t.Fatalf("rep %d: merged delta does not reproduce the truth", rep)
		}
		checkCanonical(t, m, 0, truth, twin)
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
