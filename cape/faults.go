package cape

import "github.com/cape-go/cape/internal/pagemem"

// The page faults of a region's compute, for --stats: a first touch of
// memory, or a write the monitor catches, costs one or more (see
// RESULTS.md, "The stencil's first two regions"). They are the process's
// (getrusage), so the runtime's own, rare in a region, count too.

// startFaults records, with --stats, the process's page faults as the
// region's compute begins.
func (r *Region) startFaults() {
	if st := r.stats; st != nil {
		st.faults.Start(pagemem.Faults(false))
	}
}

// endFaults records, with --stats, the page faults of the compute.
func (r *Region) endFaults() {
	if st := r.stats; st != nil {
		st.faults.End(pagemem.Faults(false))
	}
}
