package monitor

import "slices"

// Watcher is implemented by trackers that can tell which pages were
// written between regions (the uffd backend), so that a caller keeping
// copies of pages as of some moment outside a region (the lazy master's
// snapshot) refreshes only those that may have changed.
//
// Its methods, like a Tracker's, are not safe for concurrent use.
type Watcher interface {
	// Watch asks the next Start to tell whether the pages of runs
	// (half-open page-index ranges [lo, hi), increasing, not overlapping)
	// are written from now on. It is called outside a region; calls
	// before the same Start add up.
	Watch(runs [][2]int) error
	// Between returns what the last Start learned of the writes made
	// before it, since the previous Start and since the Watch calls
	// made before it.
	Between() Between
}

// Between is what a Start learned of the writes made before it. A page p
// may have been written since the previous Start (or, for a watched page,
// since it was watched) only if MayHaveChanged(p).
type Between struct {
	// Starts is the number of Starts the tracker had when it learned
	// this, that Start included: a caller that called Watch when it was
	// Starts-1 knows the writes made since then.
	Starts  int
	tracked int      // pages below tracked were tracked since the previous Start
	watched [][2]int // watched runs
	written []int    // pages reported written, increasing
}

// MayHaveChanged reports whether page p may have been written, as far as
// the tracker can tell, since the previous Start if it is tracked there,
// else since it was watched; an unwatched page past what is tracked may
// have been.
func (b *Between) MayHaveChanged(p int) bool {
	if _, ok := slices.BinarySearch(b.written, p); ok {
		return true
	}
	if p < b.tracked {
		return false
	}
	i, _ := slices.BinarySearchFunc(b.watched, p, func(r [2]int, p int) int {
		switch {
		case r[1] <= p:
			return -1
		case r[0] > p:
			return 1
		}
		return 0
	})
	return i >= len(b.watched) || p < b.watched[i][0] || p >= b.watched[i][1]
}

// add records pages [lo, hi) as written.
func (b *Between) add(lo, hi int) {
	for p := lo; p < hi; p++ {
		b.written = append(b.written, p)
	}
}

// finish sorts and deduplicates the written pages.
func (b *Between) finish() {
	slices.Sort(b.written)
	b.written = slices.Compact(b.written)
}
