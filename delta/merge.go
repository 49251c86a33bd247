package delta

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Merge returns the union of the runs of ds, all of which must belong to
// region instance region, as a new delta with Node [Merged] that shares no
// memory with ds. Deltas may cover the same byte if they agree on its value;
// if they do not, Merge returns a [*ConflictError] naming the first
// disagreement it meets (it merges in order of run offsets, so that is a low
// one, though not always the lowest). Nil deltas are skipped. Runs that touch are coalesced.
//
// Merge is a k-way merge of the sorted runs: O(total bytes + total runs ×
// log k). It only reads ds and is safe for concurrent use with other
// readers of them.
func Merge(region uint64, ds ...*Delta) (*Delta, error) {
	out := new(Delta)
	if err := MergeInto(out, region, ds...); err != nil {
		return nil, err
	}
	return out, nil
}

// MergeInto is [Merge] into dst, reusing its storage: dst is reset to
// region and [Merged] and then holds the union. dst must not be one of ds.
// On error dst holds no runs.
func MergeInto(dst *Delta, region uint64, ds ...*Delta) error {
	if dst == nil {
		return fmt.Errorf("merge region %d: nil destination: %w", region, ErrInvalid)
	}
	dst.Reset(region, Merged)
	var totalBytes, totalRuns int
	h := make(mergeHeap, 0, len(ds))
	for i, d := range ds {
		if d == nil {
			continue
		}
		if d == dst {
			return fmt.Errorf("merge region %d: destination is input %d: %w", region, i, ErrInvalid)
		}
		if d.Region != region {
			return fmt.Errorf("merge region %d: delta %d (%s) is of region %d: %w",
				region, i, nodeName(d.Node), d.Region, ErrInvalid)
		}
		n, err := checkOrder(d.Runs)
		if err != nil {
			return fmt.Errorf("merge region %d: delta %d (%s): %w", region, i, nodeName(d.Node), err)
		}
		totalBytes += n
		totalRuns += len(d.Runs)
		if len(d.Runs) > 0 {
			h = append(h, mergeCursor{runs: d.Runs, idx: i})
		}
	}
	if totalRuns == 0 {
		return nil
	}
	buf := slices.Grow(dst.buf[:0], totalBytes)
	runs := slices.Grow(dst.Runs[:0], totalRuns)
	h.init()

	open := false
	var curStart, curEnd uint64 // arena range of the open output run
	bufStart := 0               // where the open run's data starts in buf
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
			if !open || r.Off > curEnd {
				if open {
					runs = append(runs, Run{Off: curStart, Data: buf[bufStart:len(buf):len(buf)]})
				}
				open = true
				curStart, curEnd, bufStart = r.Off, end, len(buf)
				buf = append(buf, r.Data...)
				continue
			}
			// r starts inside or at the end of the open run: the
			// overlapping bytes must agree.
			ov := min(end, curEnd) - r.Off
			have := buf[bufStart+int(r.Off-curStart):][:ov]
			for j := range have {
				if have[j] != r.Data[j] {
					dst.Runs, dst.buf = runs[:0], buf[:0]
					return conflict(region, ds, c.idx, r.Off+uint64(j), r.Data[j])
				}
			}
			if end > curEnd {
				buf = append(buf, r.Data[ov:]...)
				curEnd = end
			}
		}
		if c.i == len(c.runs) {
			h.pop()
		} else {
			h.fix()
		}
	}
	if open {
		runs = append(runs, Run{Off: curStart, Data: buf[bufStart:len(buf):len(buf)]})
	}
	dst.Runs, dst.buf = runs, buf
	return nil
}

// conflict builds the error for offset off, where delta ds[b] wrote vb and
// an earlier delta in the merge order wrote something else. It names the
// first delta of ds that covers off with a value other than vb.
func conflict(region uint64, ds []*Delta, b int, off uint64, vb byte) error {
	e := &ConflictError{Region: region, Offset: off, NodeB: ds[b].Node, ValueB: vb}
	for i, d := range ds {
		if d == nil || i == b {
			continue
		}
		k := sort.Search(len(d.Runs), func(k int) bool { return d.Runs[k].End() > off })
		if k < len(d.Runs) && d.Runs[k].Off <= off {
			if v := d.Runs[k].Data[off-d.Runs[k].Off]; v != vb {
				e.NodeA, e.ValueA = d.Node, v
				break
			}
		}
	}
	return fmt.Errorf("merge: %w", e)
}

// mergeCursor is the next run of one input delta.
type mergeCursor struct {
	runs []Run
	i    int // next run
	idx  int // index of the delta in Merge's arguments, breaks ties
}

// mergeHeap is a binary min-heap of cursors ordered by their next run's
// offset, then by input index, so that Merge is deterministic.
type mergeHeap []mergeCursor

func (h mergeHeap) less(a, b int) bool {
	oa, ob := h[a].runs[h[a].i].Off, h[b].runs[h[b].i].Off
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
			m = min(m, h[k].runs[h[k].i].Off)
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
