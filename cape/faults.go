package cape

import (
	"fmt"

	"github.com/cape-go/cape/internal/pagemem"
)

// The page faults of a region's compute, for --stats: a first touch of
// memory, or a write the monitor catches, costs one or more (see
// RESULTS.md, "The stencil's first two regions"). They are the process's
// (getrusage), so the runtime's own, rare in a region, count too.

// startFaults records, with --stats, the process's page faults as the
// region's compute begins.
func (r *Region) startFaults() {
	if r.n.stats {
		r.flt0 = pagemem.Faults(false)
	}
}

// endFaults records, with --stats, the page faults of the compute.
func (r *Region) endFaults() {
	r.faults = -1
	if r.n.stats && r.flt0 >= 0 {
		if f := pagemem.Faults(false); f >= 0 {
			r.faults = f - r.flt0
		}
	}
}

// faultStats is the --stats note on the compute's page faults: empty where
// the platform cannot count them.
func (r *Region) faultStats() string {
	if r.faults < 0 {
		return ""
	}
	return fmt.Sprintf("; %d page faults in the compute", r.faults)
}
