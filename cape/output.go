package cape

import "github.com/cape-go/cape/cape/internal/roster"

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
		if err := r.n.out.Mark(u.Lo); err != nil {
			fail(r.fail(err))
		}
	}
	return u, ok
}
