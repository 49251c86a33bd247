package cape

import (
	"os"

	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/stdio"
)

// What a region's iterations print on standard output appears once, in
// the order a sequential run prints it (cape/internal/stdio captures it
// and orders it). The bytes of each unit travel with the node's reduction
// values, tagged with the unit's first iteration; the master, which has
// every committed node's units (and re-runs those of lost nodes itself),
// writes them in iteration order when it combines the values, and logs
// them with the region (--checkpoint), so that a restart prints them
// again. A nested region's output is its enclosing region's.

// orderOutput writes the nodes' output pieces, by rank, in iteration order
// to standard output and returns them as one piece for the log.
func orderOutput(outs [][]byte) ([]byte, error) { return stdio.WriteOrdered(os.Stdout, outs) }

// printLogged writes a replayed region's logged output.
func printLogged(piece []byte) error { return stdio.WriteLogged(os.Stdout, piece) }

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
