//go:build linux

package monitor

import (
	"slices"
	"time"
)

// Snapshot regions (kindSnap). A region whose hint bounds its writes to a
// few pages (cape.WritesIn over a short slice, a loop's step over one
// vector) pays, tracked as a mixed region, two PAGEMAP_SCAN walks of the
// extent and the comparisons of the chunks its bounds meet, several
// microseconds whatever it writes. Where none of the pages the bounds meet
// is write-protected (they lie in hot or probing chunks, not on a probe
// page, or nothing is armed: bare regions), a snapshot region does only
// this: Start copies those pages into the twins, Stop compares them and
// reports those that changed, the work of the compare backend over the
// bounds alone. No system call, unless the pages need a walk to tell the
// populated ones (populated) or a watched tracker learns Between.
//
// A snapshot region leaves the state of the plain region before it (its
// kind, chunks, armed pages) as it was, and hands what the mixed regions
// need to the next Start of another kind:
//
//   - The pages the Stop before it reported join those announced
//     (u.injected): the next mixed Start copies them into their twins, as
//     it does the pages the last Stop reported, which after a snapshot
//     region are only that region's.
//   - A stretch not proven clean before it makes the twins of the hot
//     chunks stale (dirtyAt), as a mixed Start's would; its own bounds'
//     twins are current, but it does not record that, and the next mixed
//     Start compares them again.
//   - Writes between regions to cold chunks stay unprotected, reading as
//     written, until the next mixed Start's walk finds them.
//   - Between, where watched, is what a mixed Start would learn: after a
//     stretch not proven clean, the written pages of cold chunks (a walk)
//     and every page of the others; after a clean one, nothing: what
//     changed since the last Start is the last region's and announced.
//
// The pages of the bounds are all a snapshot region compares: a write
// outside them, which the translator's proof excludes, is not reported,
// as in a mixed region, whose Stop scans and compares only the bounds too.
// It meets the same safety net: where it lands in a cold chunk, the next
// walk takes it for a write between regions and refreshes its twin; where
// it lands in a hot chunk, the next Start that compares the chunk does.

// snapFits reports whether the region Start begins over extent bytes,
// whose hint is h and whose bounds setBounds has set, is a snapshot region:
// its writes are bounded, it follows a plain region over the same extent
// (mixed, or bare), none of the pages of its bounds is write-protected,
// and it is estimated cheaper so (snapCheaper; always in uffdModeSnap).
func (u *uffdTracker) snapFits(h Hint, extent int) bool {
	if !h.Bounded || u.starts == 0 || u.kind != kindPlain || extent != u.extent ||
		(u.mode != uffdModeAdaptive && u.mode != uffdModeSnap) {
		return false
	}
	pages := 0
	for _, b := range u.bounds {
		pages += b.hi - b.lo
	}
	if u.mode == uffdModeAdaptive && !u.costs.snapCheaper(pages, extent/u.pageSize, u.bare, h.Clean) {
		return false
	}
	if u.bare {
		return true
	}
	for _, b := range u.bounds {
		for p := b.lo; p < b.hi; p++ {
			if u.armedPage(p) {
				return false
			}
		}
	}
	return true
}

// startSnap starts a snapshot region: it learns Between, marks the hot
// chunks' twins stale after a stretch not proven clean, and copies the
// pages of the bounds into their twins.
func (u *uffdTracker) startSnap(h Hint) error {
	u.startBetween()
	if !h.Clean {
		u.dirtyAt = uint32(u.starts + 1)
	}
	if u.watch && !h.Clean && !u.bare {
		if err := u.snapBetween(); err != nil {
			return err
		}
	}
	if !u.bare {
		u.injected = append(u.injected, u.dirty...)
	}
	if n := len(u.injected); n > 64 && n > 2*(u.armed/u.pageSize) {
		// Regions of this kind in a row append to it; keep it bounded.
		slices.Sort(u.injected)
		u.injected = slices.Compact(u.injected)
	}
	ps := u.pageSize
	u.fresh = 0
	t := time.Now()
	pages := 0
	for _, b := range u.bounds {
		u.copyPresent(b.lo*ps, b.hi*ps)
		pages += b.hi - b.lo
	}
	u.observe(u.costs.observeCopy, time.Since(t), pages)
	u.snap = true
	u.starts++
	u.betw.finish()
	return nil
}

// snapBetween is what a mixed Start after a stretch not proven clean
// learns of the pages changed since the last Start: the written pages of
// cold chunks below armed, and every page of the others.
func (u *uffdTracker) snapBetween() error {
	ps := u.pageSize
	err := u.scan(0, u.armed, false, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			if u.chunks[p/chunkPages].state == chunkCold {
				u.betw.add(p, p+1)
			}
		}
	})
	if err != nil {
		return err
	}
	for lo, hi := range u.hotRuns(u.armed / ps) {
		u.betw.add(lo, hi)
	}
	return nil
}

// stopSnap sets u.dirty to the pages of the bounds that changed since
// Start.
func (u *uffdTracker) stopSnap() {
	u.fresh = 0
	t := time.Now()
	pages := 0
	for _, b := range u.bounds {
		u.dirty = u.diffPresent(u.dirty, b.lo, b.hi)
		pages += b.hi - b.lo
	}
	u.observe(u.costs.observeCompare, time.Since(t), pages)
}
