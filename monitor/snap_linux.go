//go:build linux

package monitor

import (
	"slices"
	"time"
)

// Snapshot regions (kindSnap). A region whose hint bounds its writes to a
// few pages (cape.WritesIn over a short slice) pays, tracked by faults or
// as a mixed region, two PAGEMAP_SCAN calls (the Start's walk of the
// extent, the Stop's scan of the bounds) and a fault or comparisons per
// page written, several microseconds whatever it writes. A snapshot
// region does only this: Start copies the pages of the bounds into their
// twins, Stop compares them and reports those that changed, the compare
// backend's work over the bounds alone. No system call, unless the pages
// need a walk to tell the populated ones (populated, over 64 pages or
// more) or a watched tracker learns Between; a page of the bounds that is
// write-protected takes one fault at its first write, and stays
// unprotected while snapshot regions follow.
//
// A snapshot region leaves the state of the region before it (its kind,
// chunks, armed pages, pending twins) as it was, and what it and the
// stretches around it wrote reaches the next Start of another kind:
//
//   - A page written (in a snapshot region or between regions) where
//     write-protected stays unprotected, reading as written, until that
//     Start's walk finds it and refreshes its twin.
//   - The pages the Stop before a snapshot region reported join those
//     announced (u.injected): a mixed Start copies them into their twins,
//     as it does the pages the last Stop reported, which after a snapshot
//     region are only that region's.
//   - A stretch not proven clean before it makes the twins of the hot
//     chunks stale (dirtyAt), as a mixed Start's would; its own bounds'
//     twins are current, but it does not record that, and the next mixed
//     Start compares them again.
//   - Between, where watched, is what a mixed Start would learn: after a
//     stretch not proven clean, the written pages of cold chunks (a walk)
//     and every page of the others; after a clean one, nothing: what
//     changed since the last Start is the last region's and announced.
//
// The pages of the bounds are all a snapshot region compares: a write
// outside them, which the translator's proof excludes, is not reported,
// as in a mixed or faults region, whose Stop compares or scans only the
// bounds too. It meets the same safety net: where it lands on a
// write-protected page, the next walk takes it for a write between
// regions and refreshes its twin; in a hot chunk, the next Start that
// compares the chunk does.

// snapFits reports whether the region Start begins over extent bytes,
// whose hint is h and whose bounds setBounds has set, is a snapshot region:
// its writes are bounded, it follows a region over the same extent, and it
// is estimated cheaper so (snapCheaper; always in uffdModeSnap).
func (u *uffdTracker) snapFits(h Hint, extent int) bool {
	if !h.Bounded || u.starts == 0 || extent != u.extent || (u.mode != uffdModeAdaptive && u.mode != uffdModeSnap) {
		return false
	}
	if u.mode == uffdModeSnap {
		return true
	}
	pages := 0
	for _, b := range u.bounds {
		pages += b.hi - b.lo
	}
	return u.costs.snapCheaper(u.kind, u.bareBase(), pages, extent/u.pageSize, h.Clean)
}

// tracked returns how the current or last region is or was tracked:
// kindSnap for a snapshot region, else its kind.
func (u *uffdTracker) tracked() regionKind {
	if u.snap {
		return kindSnap
	}
	return u.kind
}

// bareBase reports whether the last region of another kind than snapshot
// was bare.
func (u *uffdTracker) bareBase() bool { return u.kind == kindPlain && u.bare }

// startSnap starts a snapshot region: it learns Between, marks the hot
// chunks' twins stale after a stretch not proven clean, and copies the
// pages of the bounds into their twins.
func (u *uffdTracker) startSnap(h Hint) error {
	u.startBetween()
	if !h.Clean {
		u.dirtyAt = uint32(u.starts + 1)
	}
	if u.watch && !h.Clean && !u.bareBase() {
		if err := u.snapBetween(); err != nil {
			return err
		}
	}
	if !u.bareBase() {
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
			if c := p / chunkPages; c >= len(u.chunks) || u.chunks[c].state == chunkCold {
				u.betw.add(p, p+1) // armed: cold (armedPage)
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
