package cape

import (
	"github.com/cape-go/cape/cape/internal/stats"
	"github.com/cape-go/cape/internal/pagemem"
)

// The page faults of a region's compute, for --stats: a first touch of
// memory, or a write the monitor catches, costs one or more (see
// RESULTS.md, "The stencil's first two regions"). They are the process's
// (getrusage), so the runtime's own, rare in a region, count too.

// startFaults records, with --stats, the process's page faults as the
// region's compute begins.
func (r *Region) startFaults() {
	if st := r.stats; st != nil {
		st.flt0 = pagemem.Faults(false)
	}
}

// endFaults records, with --stats, the page faults of the compute.
func (r *Region) endFaults() {
	st := r.stats
	if st == nil {
		return
	}
	st.faults = -1
	if st.flt0 >= 0 {
		if f := pagemem.Faults(false); f >= 0 {
			st.faults = f - st.flt0
		}
	}
}

// faultStats is the --stats note on the compute's page faults: empty where
// the platform cannot count them.
func (r *Region) faultStats() string { return stats.FaultNote(r.stats.faults) }
