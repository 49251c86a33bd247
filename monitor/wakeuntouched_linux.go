//go:build linux

package monitor

// othersWrite notes that another node wrote the pages [lo, hi): their
// chunks are no longer untouched, and so are not woken by wakeUntouched.
func (u *uffdTracker) othersWrite(lo, hi int) {
	for c := lo / chunkPages; c*chunkPages < hi && c < len(u.chunks); c++ {
		u.chunks[c].untouched = false
	}
}

// wakeUntouched makes hot, before a region whose writes h bounds, the
// untouched chunks below n pages that the bounds meet (chunk.cmp).
//
// Such a chunk was armed by coldUnpopulated before the program touched
// it, with write-protection markers on its missing pages, and nothing
// has written it since. A write to a missing page under a marker takes
// two faults, one to install the page and one for the protection, and a
// write to a page the program only read takes one; each costs tens of
// microseconds on some machines (RESULTS.md, "The stencil's first two
// regions"). An iterative program writes, in its first regions, memory it
// has not touched or has only read (a stencil's node writes its rows of
// one grid, then of the other, which it read), where the sequential
// program's first write to a page faults once and its next ones not at
// all.
//
// A woken chunk is unprotected (its markers removed) except on absent
// pages: the region's writes to it then fault only on missing pages, as
// they would without tracking. Its missing pages stay missing, so that
// the Stop's comparison skips them (populated), and the other nodes'
// shares, which the bounds meet too, cost nothing while the node leaves
// them alone. Its twins are current, as an unwritten cold chunk's are (a
// chunk found written was woken before), so it counts as compared at this
// Start. A chunk is woken this way at most once.
func (u *uffdTracker) wakeUntouched(h Hint, n int) error {
	if !h.Bounded {
		return nil
	}
	synced := uint32(u.starts + 1)
	want := func(c *chunk) bool { return c.state == chunkCold && c.untouched && c.cmp }
	for lo, hi := range u.runs(n, want) {
		for c := lo / chunkPages; c*chunkPages < hi; c++ {
			ch := &u.chunks[c]
			ch.state, ch.idle, ch.synced, ch.untouched = chunkHot, 0, synced, false
		}
		if err := u.unprotectPresent(lo, hi); err != nil {
			return err
		}
	}
	return nil
}
