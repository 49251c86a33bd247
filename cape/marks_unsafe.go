package cape

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"
)

// Writes that two iterations may make to one place (out[idx[i]] = v,
// buf[0] = 7, a[j] = a[j]*0.5 + x with j from data): the merge tells
// nodes' writes by the bytes they changed, so a write that leaves the
// value a place had at the region's entry (a store of 0 into a 0, a
// scratch element restored) is invisible to it, and another node's write
// of the same place would win where sequentially the later one does. The
// translator marks such writes (Mark); each node sends, with its values,
// the places it marked and what they hold at the region's end, and the
// master refuses two nodes that left one marked place with different
// values. Places written with the same value (a flag set by several
// iterations) pass.

// Mark records that the running iteration of r writes *p, a place the
// translator could not prove each iteration's own. Generated code calls
// it before the write, where the region marks writes (MarkWrites); a
// place outside the arena (the iteration's own memory) is not recorded.
func Mark[T any](r *Region, p *T) {
	if r == nil || r.marks == nil {
		return
	}
	r.marks.add(uintptr(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// MarkWrites makes r keep the places its iterations mark (Mark). Generated
// code calls it after Begin, before any value is registered.
func (r *Region) MarkWrites() {
	if r.nested != nil {
		return // run whole on one node: nothing to compare
	}
	mem := r.n.arena.Bytes()
	r.marks = &writeMarks{}
	if len(mem) > 0 {
		r.marks.base, r.marks.mem = uintptr(unsafe.Pointer(unsafe.SliceData(mem))), mem
	}
	r.values.Add(r.marks)
}

// maxMarkSize is the largest place a mark records (a bigger one is a
// whole array assigned at once: its bytes are the merge's to compare).
const maxMarkSize = 1 << 12

// writeMarks is a region's marked places (a values.Value: its partial is
// the places with their bytes at the region's end, its result nothing).
type writeMarks struct {
	base uintptr // the arena's first byte
	mem  []byte  // the arena
	offs []markPlace
}

// markPlace is a marked place: arena offset and size.
type markPlace struct{ off, size uint32 }

func (w *writeMarks) add(p, size uintptr) {
	if p < w.base || p-w.base >= uintptr(len(w.mem)) || size == 0 || size > maxMarkSize || p-w.base+size > uintptr(len(w.mem)) || p-w.base > 1<<32-1 {
		return
	}
	w.offs = append(w.offs, markPlace{uint32(p - w.base), uint32(size)})
}

// PartialBytes is the marked places, ascending and without repeats, each
// as its offset, its size and its bytes now: count, then per place three
// uvarints-and-bytes (offset from the previous, size, bytes).
func (w *writeMarks) PartialBytes() []byte {
	slices.SortFunc(w.offs, func(a, b markPlace) int { return int(a.off) - int(b.off) })
	w.offs = slices.Compact(w.offs)
	out := binary.AppendUvarint(nil, uint64(len(w.offs)))
	prev := uint32(0)
	for _, m := range w.offs {
		out = binary.AppendUvarint(out, uint64(m.off-prev))
		out = binary.AppendUvarint(out, uint64(m.size))
		out = append(out, w.mem[m.off:m.off+m.size]...)
		prev = m.off
	}
	return out
}

// markConflict is two nodes that left one marked place with different
// values.
type markConflict struct {
	off          uint32
	nodeA, nodeB int
}

func (e *markConflict) Error() string {
	return fmt.Sprintf("nodes %d and %d both wrote arena offset %#x, leaving different values", e.nodeA, e.nodeB, e.off)
}

// errMarks is wrapped by the errors of a malformed partial.
var errMarks = errors.New("malformed write marks")

// Combine checks the nodes' marked places (parts, by rank): a place that
// two nodes marked must hold the same bytes on both.
func (w *writeMarks) Combine(parts [][]byte) error {
	type seen struct {
		rank int
		b    []byte
	}
	first := map[uint32]seen{}
	for rank, p := range parts {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)) {
			return fmt.Errorf("node %d: %w", rank, errMarks)
		}
		p = p[k:]
		off := uint64(0)
		for j := range n {
			d, k1 := binary.Uvarint(p)
			if k1 <= 0 || j > 0 && d == 0 { // ascending, without repeats
				return fmt.Errorf("node %d: %w", rank, errMarks)
			}
			size, k2 := binary.Uvarint(p[k1:])
			if k2 <= 0 || size == 0 || size > maxMarkSize || uint64(len(p)-k1-k2) < size || off+d > uint64(len(w.mem)) {
				return fmt.Errorf("node %d: %w", rank, errMarks)
			}
			off += d
			b := p[k1+k2 : k1+k2+int(size)]
			p = p[k1+k2+int(size):]
			if s, ok := first[uint32(off)]; !ok {
				first[uint32(off)] = seen{rank, b}
			} else if s.rank != rank && !slices.Equal(s.b[:min(len(s.b), len(b))], b[:min(len(s.b), len(b))]) {
				return &markConflict{off: uint32(off), nodeA: s.rank, nodeB: rank}
			}
		}
	}
	return nil
}

// Set takes the result from the master: there is none.
func (w *writeMarks) Set(result []byte) error {
	if len(result) != 0 {
		return fmt.Errorf("write marks: a result of %d bytes: %w", len(result), errMarks)
	}
	return nil
}

// Bytes is the result: none (the check is all).
func (w *writeMarks) Bytes() []byte { return nil }

// markError is the job's error for mc, naming the element.
func (r *Region) markError(mc *markConflict) error {
	in := allocTable.Describe(int(mc.off))
	if in == "" {
		in = fmt.Sprintf("arena offset %#x (no live allocation)", mc.off)
	}
	return r.errorf("nodes %d and %d both wrote %s and left it with different values: two iterations on two nodes wrote one element (the same race under OpenMP), and the merge cannot tell which write is the later (a write of the value it had at the region's entry is invisible to it); write each element in one iteration only, or use a reduction clause", mc.nodeA, mc.nodeB, in)
}
