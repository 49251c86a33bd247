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
	// a Start a little dearer (a comparison instead of a copy, a scan).
	WatchBetween()
	// Between returns what the last Start learned. It is valid until the
	// next Start.
	Between() Between
}

// Between is what a Start learned: the content of a page p at that Start
// may differ from its content at the previous Start only if
// MayHaveChanged(p).
type Between struct {
	// Starts is the number of Starts the tracker had when it learned
	// this, that Start included.
	Starts int
	on     bool // the pages are recorded (WatchBetween)
	// compared: the pages below tracked were found by comparing with the
	// twins, not by the writes made since the previous Start.
	compared bool
	tracked  int   // pages below tracked are known; the others may have changed
	written  []int // pages below tracked that may have changed, increasing
}

// MayHaveChanged reports whether the content of page p may differ from
// its content at the previous Start.
func (b *Between) MayHaveChanged(p int) bool {
	if p >= b.tracked {
		return true
	}
	_, ok := slices.BinarySearch(b.written, p)
	return ok
}

// SinceWrites reports whether the pages that may have changed include
// every page written since the previous region's Stop, whatever it wrote
// (a page written and then restored to its content at the previous Start
// is among them). Otherwise they were found by comparison with the
// content at the previous Start.
func (b *Between) SinceWrites() bool { return !b.compared }

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
