package delta

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Base gives the content of the arena at region entry (the twin state,
// identical on every node) to [MergeBase]. Base(off) returns the entry bytes
// starting at arena offset off: at least one byte, and as many as it has
// contiguously (typically up to the end of off's page); it returns nil for
// an offset it does not hold. The returned slice is only read, and only
// until the next call. MergeBase calls it only where deltas overlap with
// different values, from the calling goroutine.
type Base func(off uint64) []byte

// PagedBase returns a [Base] over an arena kept page by page: page(p)
// returns the entry content of page p, which holds arena offsets
// [p×pageSize, (p+1)×pageSize), or nil if it has none (monitor.Tracker's
// Twin method fits). pageSize must be positive.
func PagedBase(pageSize int, page func(p int) []byte) Base {
	return func(off uint64) []byte {
		if pageSize <= 0 {
			return nil
		}
		p := off / uint64(pageSize)
		if p > math.MaxInt {
			return nil
		}
		b := page(int(p))
		if in := off % uint64(pageSize); in < uint64(len(b)) {
			return b[in:]
		}
		return nil
	}
}

// MergeBase returns the union of the runs of ds, all of which must belong
// to region instance region, as a new delta with Node [Merged] that shares
// no memory with ds. Nil deltas are skipped. Runs that touch are coalesced.
//
// Where several deltas cover one byte, the byte's value in the result is
// decided against base, the arena's content at region entry: a delta whose
// value differs from base wrote the byte; a delta whose value equals base
// only carried it along (see [Diff]) or wrote the value it already had. If
// all values agree, that is the result; otherwise the writers' value wins
// over base, and two writers with different values are a [*ConflictError]
// naming both nodes and the first such offset met (MergeBase proceeds in
// order of run offsets, so that is a low one, though not always the
// lowest). With base nil, every covered byte counts as written: deltas that
// cover one byte with different values conflict. That is right for
// byte-exact deltas (disjoint [AppendFull] runs); deltas made by [Diff]
// carry unchanged bytes and need a base.
//
// MergeBase is a k-way merge of the sorted runs: O(total bytes + total runs
// × log k), and where runs do not overlap (the normal case: nodes write
// disjoint parts of the arena) it copies each run once and never calls
// base. It calls base only for overlapping bytes whose values differ; an
// offset base does not hold is an error wrapping [ErrInvalid]. It only
// reads ds and is safe for concurrent use with other readers of them.
func MergeBase(region uint64, base Base, ds ...*Delta) (*Delta, error) {
	out := new(Delta)
	if err := MergeBaseInto(out, region, base, ds...); err != nil {
		return nil, err
	}
	return out, nil
}

// MergeBaseInto is [MergeBase] into dst, reusing its storage: dst is reset
// to region and [Merged] and then holds the union. dst must not be one of
// ds. On error dst holds no runs. Once dst has grown to the size of the
// union and to the number of deltas, it allocates nothing.
func MergeBaseInto(dst *Delta, region uint64, base Base, ds ...*Delta) error {
	return mergeInto(dst, region, base, false, Rule{}, ds)
}

// MergeUpdatesInto is [MergeBaseInto] for a region that updates memory
// (reads an element and writes it back) at places that may coincide
// between iterations: a byte that two deltas both wrote, changing it from
// base, is a [*ConflictError] even where they wrote the same value
// (Same), since two updates of one element made on two nodes each start
// from the entry value and do not add up. It needs a base.
func MergeUpdatesInto(dst *Delta, region uint64, base Base, ds ...*Delta) error {
	return MergeRuleInto(dst, region, base, Rule{Updates: true}, ds...)
}

// MergeBaseRef is [MergeBaseInto] without copying what needs no merging: a
// run that no other delta's run overlaps is kept as it is, its Data
// aliasing the input's, and runs that only touch are not coalesced; only
// where runs overlap is the result built in dst's storage. dst is then
// valid only while the Data of ds is (and unchanged); the inputs are only
// read. The result covers the same bytes with the same values as
// MergeBaseInto's, and conflicts are reported the same way.
func MergeBaseRef(dst *Delta, region uint64, base Base, ds ...*Delta) error {
	return mergeInto(dst, region, base, true, Rule{}, ds)
}

// MergeUpdatesRef is [MergeBaseRef] with the rule of [MergeUpdatesInto].
func MergeUpdatesRef(dst *Delta, region uint64, base Base, ds ...*Delta) error {
	return MergeRuleRef(dst, region, base, Rule{Updates: true}, ds...)
}

// Locations tells a merge where the program's variables lie in the arena:
// Locations(off) returns a mask whose bit i is set where arena byte off+i
// starts a variable (a scalar, or a field or element of a larger value),
// for i in 0..7. A byte that belongs to no variable, or that a caller
// cannot place, should have its bit set: it is then a variable of its own.
// Merges call it only with offsets that are multiples of 8, and only
// where two deltas wrote different bytes of one 8-byte word, from the
// calling goroutine.
type Locations func(off uint64) uint8

// Rule is how a merge tells two nodes' writes apart, beyond the byte rule
// of [MergeBase].
type Rule struct {
	// Updates: two deltas that both wrote a byte conflict even where they
	// agree ([MergeUpdatesInto]).
	Updates bool
	// Locations, if not nil, makes the merge check variables as well as
	// bytes: two deltas that wrote different bytes of one variable, so
	// that the merged variable would hold a value neither wrote (1 and 256
	// written into one int64 would merge to 257), are a [*ConflictError]
	// (Mixed). It needs a base. Variables are checked within aligned
	// 8-byte words where two deltas' runs overlap: deltas made by [Diff]
	// cover whole words, so every word two of them wrote is checked, but
	// byte-exact runs of two deltas that share a word without overlapping
	// are not. A variable wider than 8 bytes (a complex128) is checked
	// word by word.
	Locations Locations
}

// MergeRuleInto is [MergeBaseInto] with rule.
func MergeRuleInto(dst *Delta, region uint64, base Base, rule Rule, ds ...*Delta) error {
	if base == nil && (rule.Updates || rule.Locations != nil) {
		return fmt.Errorf("merge: a rule with updates or locations needs a base: %w", ErrInvalid)
	}
	return mergeInto(dst, region, base, false, rule, ds)
}

// MergeRuleRef is [MergeBaseRef] with rule.
func MergeRuleRef(dst *Delta, region uint64, base Base, rule Rule, ds ...*Delta) error {
	if base == nil && (rule.Updates || rule.Locations != nil) {
		return fmt.Errorf("merge: a rule with updates or locations needs a base: %w", ErrInvalid)
	}
	return mergeInto(dst, region, base, true, rule, ds)
}

// mergeInto is MergeBaseInto, or with ref MergeBaseRef, with rule.
func mergeInto(dst *Delta, region uint64, base Base, ref bool, rule Rule, ds []*Delta) error {
	if dst == nil {
		return fmt.Errorf("merge: nil destination: %w", ErrInvalid)
	}
	dst.Reset(region, Merged)
	h := mergeHeap(dst.cursors[:0]) // kept in dst for the next merge, cleared so as not to pin ds
	defer func() { clear(h[:cap(h)]); dst.cursors = h[:0] }()
	h, totalBytes, totalRuns, err := mergeInputs(h, dst, region, ds)
	if err != nil || totalRuns == 0 {
		return err
	}
	buf := dst.buf[:0]
	if !ref {
		buf = slices.Grow(buf, totalBytes)
	}
	runs := slices.Grow(dst.Runs[:0], totalRuns)
	h.init()

	bc := baseCache{base: base, locs: rule.Locations}
	open := false
	var curStart, curEnd uint64 // arena range of the open output run
	bufStart := 0               // where the open run's data starts in buf
	var alias []byte            // with ref: the open run's data while it is one input run
	closeRun := func() {
		if alias != nil {
			runs = append(runs, Run{Off: curStart, Data: alias})
			alias = nil
			return
		}
		runs = append(runs, Run{Off: curStart, Data: buf[bufStart:len(buf):len(buf)]})
	}
	for len(h) > 0 {
		c := &h[0]
		// The top's next run is next in merge order. Take more runs from
		// the top cursor while they come before every other cursor's next
		// run: with rows interleaved by node, most runs are
		// merged without touching the heap.
		bound := h.childMin()
		for first := true; c.i < len(c.runs); first = false {
			r := c.runs[c.i]
			if !first && r.Off >= bound {
				break
			}
			c.i++
			if len(r.Data) == 0 {
				continue
			}
			end := r.End()
			if !open || r.Off > curEnd || ref && r.Off == curEnd {
				if open {
					closeRun()
				}
				open = true
				curStart, curEnd, bufStart = r.Off, end, len(buf)
				if ref {
					alias = r.Data
				} else {
					buf = append(buf, r.Data...)
				}
				continue
			}
			if alias != nil {
				// An overlap: the open run is built in buf from here.
				bufStart = len(buf)
				buf = append(buf, alias...)
				alias = nil
			}
			// r starts inside or at the end of the open run: resolve the
			// overlapping bytes.
			ov := min(end, curEnd) - r.Off
			have := buf[bufStart+int(r.Off-curStart):][:ov]
			if err := overlap(have, r.Data[:ov], r.Off, &bc, rule.Updates); err != nil {
				dst.Runs, dst.buf = runs[:0], buf[:0]
				if ce, ok := err.(*ConflictError); ok && ce.Same {
					return sameConflict(region, ds, c.idx, ce)
				} else if ok && ce.Mixed {
					return mixedConflict(region, ds, c.idx, ce, base)
				} else if ok {
					return conflict(region, ds, c.idx, ce, base)
				}
				return fmt.Errorf("merge: %w", err)
			}
			if end > curEnd {
				buf = append(buf, r.Data[ov:]...)
				curEnd = end
			}
		}
		if c.i == len(c.runs) {
			h.pop()
		} else {
			c.off = c.runs[c.i].Off
			h.fix()
		}
	}
	if open {
		closeRun()
	}
	dst.Runs, dst.buf = runs, buf
	return nil
}

// mergeInputs checks the deltas ds that merge into dst for region and
// appends a cursor to h for each with runs; it returns h and the inputs'
// bytes and runs.
func mergeInputs(h mergeHeap, dst *Delta, region uint64, ds []*Delta) (_ mergeHeap, totalBytes, totalRuns int, err error) {
	for i, d := range ds {
		if d == nil {
			continue
		}
		if d == dst {
			return h, 0, 0, fmt.Errorf("merge: destination is input %d: %w", i, ErrInvalid)
		}
		if d.Region != region {
			return h, 0, 0, fmt.Errorf("merge: delta %d (%s) is of region %d, want %d: %w",
				i, nodeName(d.Node), d.Region, region, ErrInvalid)
		}
		n, err := checkOrder(d.Runs)
		if err != nil {
			return h, 0, 0, fmt.Errorf("merge: delta %d (%s): %w", i, nodeName(d.Node), err)
		}
		totalBytes += n
		totalRuns += len(d.Runs)
		if len(d.Runs) > 0 {
			h = append(h, mergeCursor{runs: d.Runs, off: d.Runs[0].Off, idx: i})
		}
	}
	return h, totalBytes, totalRuns, nil
}

// baseCache holds the last bytes a [Base] returned, so that overlaps on one
// page cost one call.
type baseCache struct {
	base Base
	locs Locations // with a base: where variables lie (Rule.Locations)
	b    []byte    // entry bytes from arena offset off
	off  uint64
}

// fill makes c hold the entry value at arena offset o, at c.b[o-c.off].
func (c *baseCache) fill(o uint64) error {
	if o < c.off || o-c.off >= uint64(len(c.b)) {
		if c.b, c.off = c.base(o), o; len(c.b) == 0 {
			return fmt.Errorf("base has no entry content for offset %#x: %w", o, ErrInvalid)
		}
	}
	return nil
}

// resolve merges next, one delta's bytes at arena offset off, into have,
// the merged bytes of the deltas before it at the same offsets, by the rule
// of [MergeBase]. For the first byte where have and next are different
// writes it returns a [*ConflictError] with Offset, the value ValueB of
// next and, if there is a base, the entry value in ValueA. With locations
// (bc.locs), a variable of which have and next wrote different bytes is a
// conflict too (Mixed).
//
// It works in windows that end at multiples of 8 in arena offsets, eight
// bytes at a time where the window is a whole word and the base has it
// contiguous: per byte, next is a write where it differs from the entry
// value e, have is one where it differs from e, and they conflict where
// both are writes and differ from each other; the result takes next where
// it is a write.
func resolve(have, next []byte, off uint64, bc *baseCache) error {
	for j := 0; j < len(have); {
		o := off + uint64(j)
		w := min(len(have)-j, 8-int(o&7)) // the window: to the next multiple of 8
		if w == 8 {
			h, x := binary.LittleEndian.Uint64(have[j:]), binary.LittleEndian.Uint64(next[j:])
			if h == x {
				j += 8
				continue
			}
			if bc.base != nil {
				if err := bc.fill(o); err != nil {
					return err
				}
				if b := bc.b[o-bc.off:]; len(b) >= 8 {
					e := binary.LittleEndian.Uint64(b)
					xw, hw := nonzero(x^e), nonzero(h^e)
					if nonzero(h^x)&xw&hw == 0 {
						binary.LittleEndian.PutUint64(have[j:], x&xw|h&^xw)
						if err := bc.mixed(o, byteBits(hw&^xw), byteBits(xw&^hw)); err != nil {
							return err
						}
						j += 8
						continue
					}
					// A conflict in this word: the loop below finds it.
				}
			}
		}
		if err := resolveBytes(have[j:j+w], next[j:j+w], o, bc); err != nil {
			return err
		}
		j += w
	}
	return nil
}

// resolveBytes is resolve for one window, byte by byte: have and next hold
// the bytes at arena offset o, which do not pass a multiple of 8.
func resolveBytes(have, next []byte, o uint64, bc *baseCache) error {
	var hm, xm uint8 // bytes of the word that only have, only next wrote
	for k := range have {
		if have[k] == next[k] {
			continue
		}
		ok := o + uint64(k)
		if bc.base == nil {
			return &ConflictError{Offset: ok, ValueB: next[k]}
		}
		if err := bc.fill(ok); err != nil {
			return err
		}
		switch e := bc.b[ok-bc.off]; {
		case next[k] == e: // carried along: keep have
			hm |= 1 << (ok & 7)
		case have[k] == e:
			have[k] = next[k]
			xm |= 1 << (ok & 7)
		default:
			return &ConflictError{Offset: ok, ValueA: e, ValueB: next[k]}
		}
	}
	return bc.mixed(o&^7, hm, xm)
}

// mixed returns a [*ConflictError] (Mixed) if, in the 8-byte word at arena
// offset word, one variable holds bytes that only one delta wrote (bit i of
// a: byte word+i) and bytes that only another wrote (b); with no locations
// it returns nil. A variable that starts before the word is taken to start
// with it.
func (c *baseCache) mixed(word uint64, a, b uint8) error {
	if c.locs == nil || a == 0 || b == 0 {
		return nil
	}
	starts := c.locs(word) | 1
	for i := 0; i < 8; {
		k := i + 1
		for k < 8 && starts&(1<<k) == 0 {
			k++
		}
		v := uint8(1<<k-1) &^ uint8(1<<i-1) // the variable's bytes: [i, k)
		if a&v != 0 && b&v != 0 {
			return &ConflictError{Offset: word + uint64(i), Mixed: true, span: uint8(k - i)}
		}
		i = k
	}
	return nil
}

// byteBits returns a mask with bit i set where byte i of m (little-endian)
// is not zero.
func byteBits(m uint64) uint8 {
	var r uint8
	for i := 0; m != 0; i++ {
		if m&0xff != 0 {
			r |= 1 << i
		}
		m >>= 8
	}
	return r
}

// overlap merges next, one delta's bytes at arena offset off, into have,
// the merged bytes of the deltas before it (resolve); with updates, a byte
// both wrote is a conflict first (bothWrote).
func overlap(have, next []byte, off uint64, bc *baseCache, updates bool) error {
	if updates {
		if err := bothWrote(have, next, off, bc); err != nil {
			return err
		}
	}
	if bytes.Equal(have, next) {
		return nil
	}
	return resolve(have, next, off, bc)
}

// bothWrote returns a [*ConflictError] (Same) for the first byte where
// have, the merged bytes of the deltas before one at arena offset off,
// and next, that delta's, are equal and differ from the entry value: both
// wrote it.
func bothWrote(have, next []byte, off uint64, bc *baseCache) error {
	for j := range have {
		if have[j] != next[j] {
			continue
		}
		o := off + uint64(j)
		if err := bc.fill(o); err != nil {
			return err
		}
		if e := bc.b[o-bc.off]; e != have[j] {
			return &ConflictError{Offset: o, ValueA: e, ValueB: next[j], Same: true}
		}
	}
	return nil
}

// sameConflict completes the error ce that bothWrote reported for delta
// ds[b]: it names the first other delta of ds that wrote the same value
// at ce.Offset (ce.ValueA is the entry value there).
func sameConflict(region uint64, ds []*Delta, b int, ce *ConflictError) error {
	off, v, entry := ce.Offset, ce.ValueB, ce.ValueA
	e := &ConflictError{Region: region, Offset: off, NodeB: ds[b].Node, ValueA: v, ValueB: v, Same: true}
	for i, d := range ds {
		if d == nil || i == b {
			continue
		}
		k := sort.Search(len(d.Runs), func(k int) bool { return d.Runs[k].End() > off })
		if k < len(d.Runs) && d.Runs[k].Off <= off && d.Runs[k].Data[off-d.Runs[k].Off] == v && v != entry {
			e.NodeA = d.Node
			break
		}
	}
	return e
}

// mixedConflict completes the error ce that resolve reported for delta
// ds[b], which wrote bytes of the variable at ce.Offset (ce.span bytes)
// that an earlier delta in the merge order did not, where that one wrote
// others: it names the first other delta of ds with a write (a byte that
// differs from the entry value) in the variable.
func mixedConflict(region uint64, ds []*Delta, b int, ce *ConflictError, base Base) error {
	e := &ConflictError{Region: region, Offset: ce.Offset, NodeB: ds[b].Node, Mixed: true, span: ce.span}
	for i, d := range ds {
		if d == nil || i == b {
			continue
		}
		for o := ce.Offset; o < ce.Offset+uint64(ce.span); o++ {
			k := sort.Search(len(d.Runs), func(k int) bool { return d.Runs[k].End() > o })
			if entry := base(o); k < len(d.Runs) && d.Runs[k].Off <= o && len(entry) > 0 &&
				d.Runs[k].Data[o-d.Runs[k].Off] != entry[0] {
				e.NodeA = d.Node
				return e
			}
		}
	}
	return e
}

// nonzero returns a mask with 0xFF in every byte of v that is not zero and
// 0x00 in the others.
func nonzero(v uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	m := ((v & low7) + low7 | v) &^ low7 // the high bit of every non-zero byte
	return (m >> 7) * 0xff
}

// conflict completes the error ce that resolve reported for delta ds[b],
// which wrote ce.ValueB at ce.Offset where an earlier delta in the merge
// order wrote something else. It names the first delta of ds that covers
// the offset with another value that is a write: with a base, ce.ValueA is
// the entry value, which is not one.
func conflict(region uint64, ds []*Delta, b int, ce *ConflictError, base Base) error {
	off, vb, entry := ce.Offset, ce.ValueB, ce.ValueA
	e := &ConflictError{Region: region, Offset: off, NodeB: ds[b].Node, ValueB: vb}
	for i, d := range ds {
		if d == nil || i == b {
			continue
		}
		k := sort.Search(len(d.Runs), func(k int) bool { return d.Runs[k].End() > off })
		if k < len(d.Runs) && d.Runs[k].Off <= off {
			if v := d.Runs[k].Data[off-d.Runs[k].Off]; v != vb && (base == nil || v != entry) {
				e.NodeA, e.ValueA = d.Node, v
				break
			}
		}
	}
	return e
}

// mergeCursor is the next run of one input delta.
type mergeCursor struct {
	runs []Run
	i    int    // next run
	off  uint64 // runs[i].Off, the cursor's key in the heap
	idx  int    // index of the delta in MergeBase's arguments, breaks ties
}

// mergeHeap is a binary min-heap of cursors ordered by their next run's
// offset, then by input index, so that MergeBase is deterministic.
type mergeHeap []mergeCursor

func (h mergeHeap) less(a, b int) bool {
	oa, ob := h[a].off, h[b].off
	return oa < ob || oa == ob && h[a].idx < h[b].idx
}

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// childMin is the smallest next offset among the top's children, and so
// among all cursors but the top; a run of the top below it is the next run
// in merge order. An equal offset is left to the heap, which breaks the tie
// by input index.
func (h mergeHeap) childMin() uint64 {
	m := uint64(math.MaxUint64)
	for _, k := range [2]int{1, 2} {
		if k < len(h) {
			m = min(m, h[k].off)
		}
	}
	return m
}

// fix restores the heap after the top's key grew.
func (h mergeHeap) fix() { h.down(0) }

func (h *mergeHeap) pop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	*h = old[:n]
	h.down(0)
}

func (h mergeHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
