package delta

import (
	"fmt"
	"math"
)

// Merged is the Node of a delta produced by [MergeBase] or [MergeBaseInto].
const Merged = -1

// Run is Data written at arena offset Off. Runs in a [Delta] are sorted by
// Off and do not overlap. A Run is a plain value; its Data aliases the
// buffer of the Delta it came from.
type Run struct {
	Off  uint64
	Data []byte
}

// End is the offset just past the run. It does not overflow for runs that
// the package produced or accepted.
func (r Run) End() uint64 { return r.Off + uint64(len(r.Data)) }

// Delta is what one node (or the merge of all nodes) wrote in the arena
// during one region instance, as byte runs (which may carry bytes that did
// not change: see [Diff]).
//
// A Delta is not safe for concurrent use: calls that read it ([Delta.Len],
// [Delta.Apply], [Delta.AppendBinary], [MergeBase]) may run concurrently with
// each other, but not with calls that modify it ([Delta.Reset], [Diff],
// [AppendFull], [DecodeInto], [MergeBaseInto] into it). The zero value is
// an empty delta of region 0 and node 0, ready for use.
type Delta struct {
	Region uint64 // sequence number of the region instance (1, 2, ...)
	Node   int    // rank that produced the delta, or Merged
	Runs   []Run  // sorted by Off, non-overlapping

	// buf holds the Data of every run, concatenated in run order: each
	// Runs[i].Data is a sub-slice of buf with its capacity clipped to its
	// length. Only appendRun and grow modify it.
	buf []byte

	// cursors is the storage of MergeBaseInto's heap when d is its
	// destination, kept for the next merge into d; empty between calls.
	cursors []mergeCursor
}

// Reset empties d for region instance region and node node, keeping its
// storage. The Data of runs handed out before Reset is overwritten by later
// appends.
func (d *Delta) Reset(region uint64, node int) {
	if d == nil {
		return
	}
	d.Region, d.Node = region, node
	d.Runs = d.Runs[:0]
	d.buf = d.buf[:0]
}

// Len is the total number of data bytes in d's runs.
func (d *Delta) Len() int {
	if d == nil {
		return 0
	}
	n := 0
	for _, r := range d.Runs {
		n += len(r.Data)
	}
	return n
}

// AppendFull appends cur wholesale as one run at offset off (the "complete
// checkpoint" mode), copying it, and coalesces it with the last run if they
// touch. Calls must come in increasing offset order, like [Diff]. If off +
// len(cur) would pass 2^64-1, cur is cut at that point.
func AppendFull(d *Delta, off uint64, cur []byte) {
	if d == nil {
		return
	}
	d.appendRun(off, clip(off, cur))
}

// clip cuts b so that off+len(b) does not overflow.
func clip(off uint64, b []byte) []byte {
	if room := math.MaxUint64 - off; uint64(len(b)) > room {
		return b[:room]
	}
	return b
}

// appendRun appends a copy of data as a run at off, extending the last run
// instead when it ends at off.
func (d *Delta) appendRun(off uint64, data []byte) {
	if len(data) == 0 {
		return
	}
	if n := len(d.Runs); n > 0 && d.Runs[n-1].End() == off {
		last := d.Runs[n-1].Data
		if !d.atEnd(last) {
			// A caller installed Runs whose data is not ours: rebase
			// everything into buf, which puts last at its end.
			d.grow(len(d.Runs[n-1].Data)+len(data), true)
			last = d.Runs[n-1].Data
		} else {
			d.grow(len(data), false)
			last = d.Runs[n-1].Data // grow may have moved it
		}
		start := len(d.buf) - len(last)
		d.buf = append(d.buf, data...)
		d.Runs[n-1].Data = d.buf[start:len(d.buf):len(d.buf)]
		return
	}
	d.grow(len(data), false)
	start := len(d.buf)
	d.buf = append(d.buf, data...)
	d.Runs = append(d.Runs, Run{Off: off, Data: d.buf[start:len(d.buf):len(d.buf)]})
}

// atEnd reports whether b is non-empty and ends at the end of d.buf.
func (d *Delta) atEnd(b []byte) bool {
	return len(b) > 0 && len(d.buf) > 0 && &b[len(b)-1] == &d.buf[len(d.buf)-1]
}

// grow makes room for n more bytes in d.buf. When it must reallocate, or
// when force is set, it copies every run's Data into the new buffer in run
// order and re-points the runs, so that buf again holds exactly the runs'
// data.
func (d *Delta) grow(n int, force bool) {
	if !force && cap(d.buf)-len(d.buf) >= n {
		return
	}
	used := d.Len()
	c := max(2*cap(d.buf), used+n, 4096)
	nb := make([]byte, 0, c)
	for i := range d.Runs {
		s := len(nb)
		nb = append(nb, d.Runs[i].Data...)
		d.Runs[i].Data = nb[s:len(nb):len(nb)]
	}
	d.buf = nb
}

// Reserve makes room in d for n more bytes of run data, so that the runs
// appended next (up to n bytes) are not copied as d grows. If that took a
// new buffer it returns the room, fresh memory which a caller may prepare
// (populate) but must not write; nil if d had the room already.
func (d *Delta) Reserve(n int) []byte {
	if d == nil || n <= 0 || cap(d.buf)-len(d.buf) >= n {
		return nil
	}
	d.grow(n, false)
	return d.buf[len(d.buf):cap(d.buf)]
}

// Apply writes d's runs into mem, where mem[0] is arena offset 0. It checks
// every run first, and if one is out of order or overlaps its predecessor
// (an error wrapping [ErrInvalid]) or does not fit in mem (a [*BoundsError])
// it returns the error without writing anything.
func (d *Delta) Apply(mem []byte) error {
	if d == nil {
		return nil
	}
	if err := checkRuns(d.Runs, uint64(len(mem))); err != nil {
		return fmt.Errorf("apply delta: %w", err)
	}
	for _, r := range d.Runs {
		copy(mem[r.Off:], r.Data)
	}
	return nil
}

// checkRuns reports the first run that overlaps or precedes its predecessor,
// or that ends past size.
func checkRuns(runs []Run, size uint64) error {
	var prevEnd uint64
	for i, r := range runs {
		n := uint64(len(r.Data))
		if r.Off > size || n > size-r.Off {
			return &BoundsError{Offset: r.Off, Length: n, Size: size}
		}
		if i > 0 && r.Off < prevEnd && n > 0 {
			return fmt.Errorf("run %d at offset %#x overlaps the previous run ending at %#x: %w",
				i, r.Off, prevEnd, ErrInvalid)
		}
		prevEnd = max(prevEnd, r.Off+n)
	}
	return nil
}

// checkOrder is checkRuns without a size: runs sorted, disjoint, and not
// past 2^64-1. It returns their total length.
func checkOrder(runs []Run) (total int, err error) {
	var prevEnd uint64
	for i, r := range runs {
		n := uint64(len(r.Data))
		if n > math.MaxUint64-r.Off {
			return 0, fmt.Errorf("run %d at offset %#x of length %d passes 2^64-1: %w", i, r.Off, n, ErrInvalid)
		}
		if i > 0 && r.Off < prevEnd && n > 0 {
			return 0, fmt.Errorf("run %d at offset %#x overlaps the previous run ending at %#x: %w",
				i, r.Off, prevEnd, ErrInvalid)
		}
		prevEnd = max(prevEnd, r.Off+n)
		total += len(r.Data)
	}
	return total, nil
}
