package cape

import (
	"errors"
	"slices"
	"testing"
	"unsafe"
)

// testMarks returns write marks over mem, as MarkWrites makes them.
func testMarks(mem []byte) *writeMarks {
	return &writeMarks{base: uintptr(unsafe.Pointer(unsafe.SliceData(mem))), mem: mem}
}

// TestWriteMarks checks the marks' round trip through PartialBytes and
// Combine: two nodes that left a marked place with different values are a
// conflict naming both, equal values and different places pass, and a
// place outside the arena is not recorded.
func TestWriteMarks(t *testing.T) {
	a, b := make([]byte, 64), make([]byte, 64)
	ma, mb := testMarks(a), testMarks(b)
	a[8], b[8] = 5, 5   // both wrote 5 at 8: agree
	a[16], b[24] = 1, 2 // different places
	b[40] = 9           // node 1 wrote 9 at 40, node 0 left it 0
	for _, off := range []int{8, 16, 40, 40} {
		ma.add(uintptr(unsafe.Pointer(&a[off])), 8)
	}
	for _, off := range []int{8, 24, 40} {
		mb.add(uintptr(unsafe.Pointer(&b[off])), 8)
	}
	var outside [8]byte
	ma.add(uintptr(unsafe.Pointer(&outside[0])), 8)
	ma.add(uintptr(unsafe.Pointer(&a[60])), 8) // past the arena's end
	if len(ma.offs) != 3 {
		t.Fatalf("recorded %d marks, want 3 (a repeat and none outside the arena)", len(ma.offs))
	}
	err := ma.Combine([][]byte{ma.PartialBytes(), mb.PartialBytes()})
	var mc *markConflict
	if !errors.As(err, &mc) || mc.off != 40 || mc.nodeA != 0 || mc.nodeB != 1 {
		t.Fatalf("Combine: %v, want nodes 0 and 1 at offset 40", err)
	}
	b[40] = 0
	if err := ma.Combine([][]byte{ma.PartialBytes(), mb.PartialBytes()}); err != nil {
		t.Fatalf("Combine with equal values: %v", err)
	}
	if err := ma.Combine([][]byte{ma.PartialBytes()[:3]}); !errors.Is(err, errMarks) {
		t.Errorf("Combine of a truncated partial: %v, want errMarks", err)
	}
	if err := ma.Set([]byte{1}); err == nil {
		t.Error("Set of a result: no error")
	}
}

// FuzzWriteMarks checks the master's reading of a node's marks, which come
// from a peer: no panic, and what it accepts is consistent with itself.
func FuzzWriteMarks(f *testing.F) {
	mem := make([]byte, 1<<12)
	w := testMarks(mem)
	mem[100] = 7
	w.add(uintptr(unsafe.Pointer(&mem[100])), 8)
	w.add(uintptr(unsafe.Pointer(&mem[8])), 4)
	f.Add(w.PartialBytes())
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		m := testMarks(mem)
		if err := m.Combine([][]byte{p, p}); err != nil && !errors.Is(err, errMarks) {
			t.Fatalf("Combine of one partial twice: %v", err) // one node's marks never conflict with themselves
		}
	})
}

// BenchmarkWriteMarks measures the nodes' reports of a scatter's marks:
// two nodes of 1M marked float64 places each, in the scatter's order,
// sorted and encoded (PartialBytes) and compared (Combine), per op.
func BenchmarkWriteMarks(b *testing.B) {
	mem := make([]byte, 16<<20)
	wa, wb := testMarks(mem), testMarks(mem)
	const n = 1 << 21 // places; each node marks half, scattered
	for i := 0; i < n/2; i++ {
		wa.add(uintptr(unsafe.Pointer(&mem[(2*i*7919)%n*8])), 8)
		wb.add(uintptr(unsafe.Pointer(&mem[(2*i*7919+7919)%n*8])), 8)
	}
	oa, ob := slices.Clone(wa.offs), slices.Clone(wb.offs)
	for b.Loop() {
		wa.offs, wb.offs = append(wa.offs[:0], oa...), append(wb.offs[:0], ob...)
		if err := wa.Combine([][]byte{wa.PartialBytes(), wb.PartialBytes()}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMarkAt checks that MarkAt returns the index it is given, records the
// element's place once, and records nothing for an index outside the
// slice, for a negative one, or without marks.
func TestMarkAt(t *testing.T) {
	mem := make([]byte, 64)
	r := &Region{marks: testMarks(mem)}
	s := unsafe.Slice((*int64)(unsafe.Pointer(&mem[0])), 8)
	if k := MarkAt(r, s, uint8(3)); k != 3 {
		t.Fatalf("MarkAt returned %d, want 3", k)
	}
	for _, k := range []int{8, -1, 1 << 40} {
		if got := MarkAt(r, s, k); got != k {
			t.Fatalf("MarkAt returned %d, want %d", got, k)
		}
	}
	if want := []uint64{24<<16 | 8}; !slices.Equal(r.marks.offs, want) {
		t.Fatalf("marks %x, want %x (element 3 only)", r.marks.offs, want)
	}
	// A struct and its first field: one place, the struct's.
	Mark(r, (*[4]int64)(s[3:7]))
	Mark(r, &s[6])
	if err := r.marks.Combine([][]byte{r.marks.PartialBytes()}); err != nil {
		t.Fatalf("Combine of a place and its first part: %v", err)
	}
	if want := []uint64{24<<16 | 32, 48<<16 | 8}; !slices.Equal(r.marks.offs, want) {
		t.Fatalf("marks %x, want %x", r.marks.offs, want)
	}
	if k := MarkAt(nil, s, 2); k != 2 {
		t.Fatalf("MarkAt without a region returned %d", k)
	}
}

// TestMarkN checks that MarkN records each of the first n elements of the
// slice (a copy's window), no more than the slice has, and nothing
// without marks.
func TestMarkN(t *testing.T) {
	mem := make([]byte, 64)
	r := &Region{marks: testMarks(mem)}
	s := unsafe.Slice((*int64)(unsafe.Pointer(&mem[0])), 8)
	MarkN(r, s[2:], 3)
	if want := []uint64{16<<16 | 8, 24<<16 | 8, 32<<16 | 8}; !slices.Equal(r.marks.offs, want) {
		t.Fatalf("marks %x, want %x (elements 2 to 4)", r.marks.offs, want)
	}
	r.marks.offs = nil
	MarkN(r, s[6:], 5)
	if want := []uint64{48<<16 | 8, 56<<16 | 8}; !slices.Equal(r.marks.offs, want) {
		t.Fatalf("marks %x, want %x (the slice's 2 elements)", r.marks.offs, want)
	}
	MarkN(nil, s, 4) // without a region: nothing, no panic
}
