package cape

import (
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/pagemem"
	"github.com/cape-go/cape/monitor"
)

// checkpointer is the checkpoint mode of a multi-node job, chosen once when
// the node joins: incremental (deltas of the bytes each node changed, the
// default) or complete (the paper's baseline: slaves send, and receive, all
// the pages of the arena). Its methods are called from the goroutine that
// runs the region, one at a time: they read the tracker's twins, which the
// monitor's contract forbids from several goroutines.
type checkpointer interface {
	// create appends to d the region's writes on the given dirty pages.
	create(d *delta.Delta, mem []byte, pages []int, tr monitor.Tracker)
	// received turns a slave's delta, on the master, into the bytes the
	// slave changed, ready to merge against the master's twins.
	received(d *delta.Delta, tr monitor.Tracker) *delta.Delta
	// broadcastAll reports whether the master sends every slave the same
	// delta, outgoing's, own bytes included. If not, it sends each slave
	// the merged delta less the bytes of that slave's delta.
	broadcastAll() bool
	// outgoing is what the master sends every slave, if broadcastAll,
	// once it has injected merged into mem, the region's extent of the
	// arena.
	outgoing(merged *delta.Delta, mem []byte) *delta.Delta
}

// newCheckpointer returns the checkpoint mode for a node of rank rank
// using the monitor backend named backend (as configured).
func newCheckpointer(backend string, rank int) checkpointer {
	if backend == monitor.BackendComplete {
		return complete{slave: rank != 0}
	}
	return incremental{}
}

// incremental sends, and merges, the bytes each node changed.
type incremental struct{}

func (incremental) create(d *delta.Delta, mem []byte, pages []int, tr monitor.Tracker) {
	ps := tr.PageSize()
	pagemem.Populate(d.Reserve(len(pages) * ps))
	for _, p := range pages {
		off := p * ps
		delta.Diff(d, uint64(off), mem[off:off+ps], tr.Twin(p))
	}
}

func (incremental) received(d *delta.Delta, _ monitor.Tracker) *delta.Delta { return d }

func (incremental) broadcastAll() bool { return false }

func (incremental) outgoing(merged *delta.Delta, _ []byte) *delta.Delta { return merged }

// complete is the paper's complete-checkpoint baseline: a slave sends every
// page the complete monitor reports (all of the extent), which the master
// reduces to the changed bytes before merging, and the master sends every
// slave the whole extent.
type complete struct{ slave bool }

func (c complete) create(d *delta.Delta, mem []byte, pages []int, tr monitor.Tracker) {
	if !c.slave {
		incremental{}.create(d, mem, pages, tr)
		return
	}
	ps := tr.PageSize()
	for _, p := range pages {
		off := p * ps
		delta.AppendFull(d, uint64(off), mem[off:off+ps])
	}
}

// received reduces a slave's complete checkpoint to the delta it stands
// for, against the master's twins (which equal the slave's entry state).
func (complete) received(full *delta.Delta, tr monitor.Tracker) *delta.Delta {
	ps := tr.PageSize()
	d := &delta.Delta{}
	d.Reset(full.Region, full.Node)
	for _, run := range full.Runs {
		for o := 0; o < len(run.Data); o += ps {
			off := int(run.Off) + o
			end := min(o+ps, len(run.Data))
			p := off / ps
			twin := tr.Twin(p)[off-p*ps:]
			delta.Diff(d, uint64(off), run.Data[o:end], twin[:end-o])
		}
	}
	return d
}

// broadcastAll: the baseline sends every slave the whole extent.
func (complete) broadcastAll() bool { return true }

func (complete) outgoing(merged *delta.Delta, mem []byte) *delta.Delta {
	full := &delta.Delta{}
	full.Reset(merged.Region, delta.Merged)
	delta.AppendFull(full, 0, mem)
	return full
}
