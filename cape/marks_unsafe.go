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

// MarkAt records, as Mark does, that the running iteration of r writes
// s[k], and returns k. Generated code wraps an index that calls a function
// with it (a[half(i)] = v becomes a[cape.MarkAt(r, a, half(i))] = v): Mark
// of the place would call it twice. An index outside s is not recorded
// (the write it serves panics).
func MarkAt[S ~[]E, E any, I Integer](r *Region, s S, k I) I {
	if r != nil && r.marks != nil && k >= 0 && uint64(k) < uint64(len(s)) {
		Mark(r, &s[k])
	}
	return k
}

// MarkN records, as Mark does, that the running iteration of r writes
// the first n elements of s (all of s, if it has fewer). Generated code
// calls it before a copy into s whose window other iterations may reach
// (copy(a[i*4:], src), n len(src)).
func MarkN[S ~[]E, E any](r *Region, s S, n int) {
	if r == nil || r.marks == nil {
		return
	}
	for k := range min(n, len(s)) {
		Mark(r, &s[k])
	}
}

// MarkCallee records, as Mark does, that the running iteration of the
// region running on this node writes *p, from a function its loop calls
// (buf[0] written by set0(buf, v)): generated code calls it there, before
// a write of one place in every iteration. The function may run outside
// any region too: then, or where the region does not mark writes, it
// records nothing.
func MarkCallee[T any](p *T) {
	if self == nil || self.cur == nil {
		return
	}
	Mark(self.cur, p)
}

// MarkWrites makes r keep the places its iterations mark (Mark). Generated
// code calls it after Begin, before any value is registered.
func (r *Region) MarkWrites() {
	if r.nested != nil {
		return // run whole on one node: nothing to compare
	}
	mem := r.n.arena.Bytes()
	r.marks = &writeMarks{}
	if len(mem) > 0 && r.size > 1 { // on one node there is nothing to compare: nothing is kept
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
	base uintptr  // the arena's first byte
	mem  []byte   // the arena
	offs []uint64 // the marked places: offset<<16 | size
}

func (w *writeMarks) add(p, size uintptr) {
	if p < w.base || p-w.base >= uintptr(len(w.mem)) || size == 0 || size > maxMarkSize || p-w.base+size > uintptr(len(w.mem)) || p-w.base >= 1<<47 {
		return
	}
	m := uint64(p-w.base)<<16 | uint64(size)
	if n := len(w.offs); n > 0 && w.offs[n-1] == m {
		return // the same place again (an update in a loop)
	}
	w.offs = append(w.offs, m)
}

// PartialBytes is the marked places, ascending and without repeats, each
// as its offset, its size and its bytes now: count, then per place three
// uvarints-and-bytes (offset from the previous, size, bytes).
func (w *writeMarks) PartialBytes() []byte {
	slices.Sort(w.offs)
	// Of the places starting at one offset (a struct and its first
	// field), the largest, which the sort puts last, covers the others.
	kept := w.offs[:0]
	for i, m := range w.offs {
		if i+1 == len(w.offs) || w.offs[i+1]>>16 != m>>16 {
			kept = append(kept, m)
		}
	}
	w.offs = kept
	n := binary.MaxVarintLen64
	for _, m := range w.offs {
		n += 2*binary.MaxVarintLen64 + int(m&0xffff)
	}
	out := binary.AppendUvarint(make([]byte, 0, n), uint64(len(w.offs)))
	prev := uint64(0)
	for _, m := range w.offs {
		off, size := m>>16, m&0xffff
		out = binary.AppendUvarint(out, off-prev)
		out = binary.AppendUvarint(out, size)
		out = append(out, w.mem[off:off+size]...)
		prev = off
	}
	return out
}

// markConflict is two nodes that left one marked place with different
// values.
type markConflict struct {
	off          uint64
	nodeA, nodeB int
}

func (e *markConflict) Error() string {
	return fmt.Sprintf("nodes %d and %d both wrote arena offset %#x, leaving different values", e.nodeA, e.nodeB, e.off)
}

// errMarks is wrapped by the errors of a malformed partial.
var errMarks = errors.New("malformed write marks")

// Combine checks the nodes' marked places (parts, by rank): a place that
// two nodes marked must hold the same bytes on both. Each node's places
// come ascending: they are merged as they are read, with nothing kept.
func (w *writeMarks) Combine(parts [][]byte) error {
	cs := make([]markCursor, len(parts))
	for rank, p := range parts {
		cs[rank] = markCursor{p: p, limit: uint64(len(w.mem))}
		if err := cs[rank].start(); err != nil {
			return fmt.Errorf("node %d: %w", rank, err)
		}
	}
	for {
		// The lowest next place, and the first node with it.
		first := -1
		for rank := range cs {
			if c := &cs[rank]; c.left > 0 && (first < 0 || c.off < cs[first].off) {
				first = rank
			}
		}
		if first < 0 {
			return nil
		}
		lo, b := cs[first].off, cs[first].b
		for rank := first; rank < len(cs); rank++ {
			c := &cs[rank]
			if c.left == 0 || c.off != lo {
				continue
			}
			if o := c.b; !slices.Equal(b[:min(len(b), len(o))], o[:min(len(b), len(o))]) {
				return &markConflict{off: lo, nodeA: first, nodeB: rank}
			}
			if err := c.next(); err != nil {
				return fmt.Errorf("node %d: %w", rank, err)
			}
		}
	}
}

// markCursor reads one node's partial (PartialBytes) a place at a time:
// places ascending without repeats, each inside the arena (limit).
type markCursor struct {
	p     []byte
	limit uint64
	left  uint64 // places left, the current one included
	off   uint64 // the current place
	b     []byte
}

// start reads the count and the first place.
func (c *markCursor) start() error {
	n, k := binary.Uvarint(c.p)
	if k <= 0 || n > uint64(len(c.p)) {
		return errMarks
	}
	c.p, c.left = c.p[k:], n+1
	c.off = 0
	return c.advance(true)
}

// next moves to the next place.
func (c *markCursor) next() error { return c.advance(false) }

func (c *markCursor) advance(first bool) error {
	c.left--
	if c.left == 0 {
		return nil
	}
	d, k1 := binary.Uvarint(c.p)
	if k1 <= 0 || !first && d == 0 { // ascending, without repeats
		return errMarks
	}
	size, k2 := binary.Uvarint(c.p[k1:])
	if k2 <= 0 || size == 0 || size > maxMarkSize || uint64(len(c.p)-k1-k2) < size || c.off+d > c.limit {
		return errMarks
	}
	c.off += d
	c.b = c.p[k1+k2 : k1+k2+int(size)]
	c.p = c.p[k1+k2+int(size):]
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
	return r.errorf("nodes %d and %d both wrote %s and left it with different values: two iterations on two nodes wrote one element (the same race under OpenMP), and the merge cannot tell which write is the later (a write of the value it had at the region's entry is invisible to it); write each element in one iteration only, or use a reduction clause (where the iterations' places are in fact distinct, list the variable in shared(...) to say so)", mc.nodeA, mc.nodeB, in)
}
