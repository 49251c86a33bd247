package cape

import (
	"slices"

	"github.com/cape-go/cape/cape/internal/roster"
)

// What a region's iterations print on standard output appears once, in
// the order a sequential run prints it (cape/internal/stdio captures it
// and orders it). The bytes of each unit travel with the node's reduction
// values, tagged with the unit's first iteration; the master, which has
// every committed node's units (and re-runs those of lost nodes itself),
// writes them in iteration order when it combines the values, and logs
// them with the region (--checkpoint), so that a restart prints them
// again. A nested region's output is its enclosing region's.

// captures reports whether this region's output is captured: a region
// split over several nodes, computing (not replayed from the log).
func (r *Region) captures() bool {
	return r.nested == nil && r.size > 1 && !r.replaying() && r.n.out != nil
}

// markUnit records the start of the unit [lo, …) in the output capture.
func (r *Region) markUnit(u roster.Unit, ok bool) (roster.Unit, bool) {
	if ok && r.nested == nil {
		if r.captures() {
			r.ran = append(r.ran, u) // for ranAllBefore, if the program ends in the region
		}
		if err := r.n.out.Mark(u.Lo); err != nil {
			fail(r.fail(err))
		}
	}
	return u, ok
}

// ranAllBefore reports whether this node ran every iteration before its
// current unit (the last it started) itself in this region, so that what
// it printed in those units and in the current one so far is all a
// sequential run would have printed in the region when the program ends
// in the current unit. It also returns the current unit's first iteration
// (-1 when no unit started).
func (r *Region) ranAllBefore() (bool, int) {
	if len(r.ran) == 0 {
		return true, -1
	}
	cur := r.ran[len(r.ran)-1]
	before := slices.Clone(r.ran[:len(r.ran)-1])
	slices.SortFunc(before, func(a, b roster.Unit) int { return a.Lo - b.Lo })
	next := 0 // the first iteration not yet covered
	for _, u := range before {
		if u.Lo > next {
			break
		}
		next = max(next, u.Hi)
	}
	return next >= cur.Lo, cur.Lo
}
