package delta

import (
	"fmt"
	"sort"
)

// Merge returns the union of the runs of ds, all of which must belong to
// region instance region, as a new delta with Node [Merged] that shares no
// memory with ds. Deltas may cover the same byte if they agree on its value;
// if they do not, Merge returns a [*ConflictError] naming the lowest such
// offset. Nil deltas are skipped. Runs that touch are coalesced.
//
// Merge is a k-way merge of the sorted runs: O(total bytes + total runs ×
// log k). It only reads ds and is safe for concurrent use with other
// readers of them.
func Merge(region uint64, ds ...*Delta) (*Delta, error) {
	var totalBytes, totalRuns int
	h := make(mergeHeap, 0, len(ds))
	for i, d := range ds {
		if d == nil {
			continue
		}
		if d.Region != region {
			return nil, fmt.Errorf("merge region %d: delta %d (%s) is of region %d: %w",
				region, i, nodeName(d.Node), d.Region, ErrInvalid)
		}
		if err := checkOrder(d.Runs); err != nil {
			return nil, fmt.Errorf("merge region %d: delta %d (%s): %w", region, i, nodeName(d.Node), err)
		}
		totalBytes += d.Len()
		totalRuns += len(d.Runs)
		if len(d.Runs) > 0 {
			h = append(h, mergeCursor{runs: d.Runs, idx: i})
		}
	}
	h.init()

	out := &Delta{Region: region, Node: Merged}
	if totalRuns == 0 {
		return out, nil
	}
	buf := make([]byte, 0, totalBytes)
	runs := make([]Run, 0, totalRuns)

	open := false
	var curStart, curEnd uint64 // arena range of the open output run
	bufStart := 0               // where the open run's data starts in buf
	closeRun := func() {
		if open {
			runs = append(runs, Run{Off: curStart, Data: buf[bufStart:len(buf):len(buf)]})
		}
	}
	for len(h) > 0 {
		c := &h[0]
		r := c.runs[c.i]
		if len(r.Data) > 0 {
			end := r.End()
			if !open || r.Off > curEnd {
				closeRun()
				open = true
				curStart, curEnd, bufStart = r.Off, end, len(buf)
				buf = append(buf, r.Data...)
			} else {
				// r starts inside or at the end of the open run: the
				// overlapping bytes must agree.
				ov := min(end, curEnd) - r.Off
				have := buf[bufStart+int(r.Off-curStart):][:ov]
				for j := range have {
					if have[j] != r.Data[j] {
						return nil, conflict(region, ds, c.idx, r.Off+uint64(j), r.Data[j])
					}
				}
				if end > curEnd {
					buf = append(buf, r.Data[ov:]...)
					curEnd = end
				}
			}
		}
		c.i++
		if c.i == len(c.runs) {
			h.pop()
		} else {
			h.fix()
		}
	}
	closeRun()
	out.Runs, out.buf = runs, buf
	return out, nil
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
