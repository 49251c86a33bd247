package monitor

import "slices"

// Watcher is implemented by trackers that can tell which pages may have
// changed from one Start to the next (the uffd backend), so that a caller
// keeping copies of pages as of some moment (the lazy master's snapshot)
// refreshes only those that may have changed.
//
// Its methods, like a Tracker's, are not safe for concurrent use.
type Watcher interface {
	// WatchBetween makes every later Start learn which pages may have
	// changed since the previous Start, which Between tells. It may make
	// a Start a little dearer (a scan when a plain region follows an
	// armed one).
	WatchBetween()
	// Between returns what the last Start learned. It is valid until the
	// next Start.
	Between() Between
}

// Between is what a Start learned: a page p may have been written since
// the previous Start, other than by the previous region (whose Stop
// reported its pages) and by writes announced with Injector.WillWrite,
// only if MayHaveChanged(p). (The uffd backend knows the pages it tracks by
// write-protection, and the pages of the chunks a mixed region compares
// after a stretch proven clean (Hint); in plain regions it knows none.)
type Between struct {
	// Starts is the number of Starts the tracker had when it learned
	// this, that Start included.
	Starts  int
	on      bool  // the pages are recorded (WatchBetween)
	tracked int   // pages below tracked are known; the others may have changed
	written []int // pages below tracked that may have changed, increasing
}

// MayHaveChanged reports whether page p may have been written since the
// previous Start, other than by the previous region and by announced
// writes.
func (b *Between) MayHaveChanged(p int) bool {
	if p >= b.tracked {
		return true
	}
	_, ok := slices.BinarySearch(b.written, p)
	return ok
}

// add records pages [lo, hi) as possibly changed.
func (b *Between) add(lo, hi int) {
	if !b.on {
		return
	}
	for p := lo; p < hi; p++ {
		b.written = append(b.written, p)
	}
}

// finish sorts and deduplicates the pages recorded.
func (b *Between) finish() {
	slices.Sort(b.written)
	b.written = slices.Compact(b.written)
}

// Known returns the number of pages, from page 0, that b knows about:
// every page at or above it may have changed.
func (b *Between) Known() int { return b.tracked }

// Written returns, in increasing order, the pages below Known that may
// have changed: with Known, what MayHaveChanged tells, for a caller that
// walks the pages that may have changed rather than asking about each of
// its own (the lazy master, whose lacked pages grow with what a program
// leaves behind). The slice is the tracker's, valid until the next Start.
func (b *Between) Written() []int { return b.written }
