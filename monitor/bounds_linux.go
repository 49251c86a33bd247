//go:build linux

package monitor

import (
	"cmp"
	"slices"
)

// pageSpan is the pages [lo, hi).
type pageSpan struct{ lo, hi int }

// setBounds records, for the region Start begins over extent bytes, the
// pages its writes can reach where h bounds them (u.bounds), so that its
// Stop scans only those: a Stop's PAGEMAP_SCAN walk otherwise costs a
// few nanoseconds for every page of the extent, and the extent holds the
// memory a program no longer touches (the arrays of other phases, the
// buffers it dropped or leaked) as well as the memory it works on.
// Writes between regions, which can land anywhere, are still found by
// the next Start's walk of the whole extent.
func (u *uffdTracker) setBounds(h Hint, extent int) {
	u.bounded = h.Bounded
	u.bounds = u.bounds[:0]
	if !h.Bounded {
		return
	}
	ps, np := u.pageSize, extent/u.pageSize
	for _, w := range h.Writes {
		if w.Len <= 0 {
			continue
		}
		lo, hi := w.Off/ps, min((w.Off+w.Len+ps-1)/ps, np)
		if lo < hi {
			u.bounds = append(u.bounds, pageSpan{lo, hi})
		}
	}
	slices.SortFunc(u.bounds, func(a, b pageSpan) int { return cmp.Compare(a.lo, b.lo) })
	out := u.bounds[:0]
	for _, b := range u.bounds {
		if n := len(out); n > 0 && b.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, b.hi)
			continue
		}
		out = append(out, b)
	}
	u.bounds = out
}

// scanBounds is a Stop's scan (without re-arming) of the pages the region
// may have written: the bounds of its writes where its hint gave them
// (setBounds), else the whole extent. fn gets runs of written pages in
// increasing order.
func (u *uffdTracker) scanBounds(fn func(lo, hi int)) error {
	if !u.bounded {
		return u.scan(0, u.extent, false, fn)
	}
	for _, b := range u.bounds {
		if err := u.scan(b.lo*u.pageSize, b.hi*u.pageSize, false, fn); err != nil {
			return err
		}
	}
	return nil
}
