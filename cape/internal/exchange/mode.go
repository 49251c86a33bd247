package exchange

import (
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/pagemem"
)

// Twins is the entry state of the arena's pages, by page number: the
// monitor's twins (monitor.Tracker satisfies it). A twin is valid until
// the monitor is armed again.
type Twins interface {
	PageSize() int
	Twin(p int) []byte
}

// Mode is the checkpoint mode of a multi-node job, chosen once when the
// node joins: Incremental (deltas of the bytes each node changed, the
// default) or Complete (the paper's baseline: slaves send, and receive,
// all the pages of the arena). Its methods are called from the goroutine
// that runs the region, one at a time: they read the twins, which the
// monitor's contract forbids from several goroutines.
type Mode interface {
	// Create appends to d the region's writes on the given dirty pages
	// of mem, the arena.
	Create(d *delta.Delta, mem []byte, pages []int, tw Twins)
	// Received turns a slave's delta, on the master, into the bytes the
	// slave changed, ready to merge against the master's twins.
	Received(d *delta.Delta, tw Twins) *delta.Delta
	// BroadcastAll reports whether the master sends every slave the same
	// delta, Outgoing's, own bytes included. If not, it sends each slave
	// the merged delta less the bytes of that slave's delta (LessOwn).
	BroadcastAll() bool
	// Outgoing is what the master sends every slave, if BroadcastAll,
	// once it has injected merged into mem, the region's extent of the
	// arena.
	Outgoing(merged *delta.Delta, mem []byte) *delta.Delta
}

// NewMode returns the checkpoint mode of a node: complete for the
// complete monitor backend, incremental otherwise. slave is whether the
// node is a slave (rank > 0).
func NewMode(complete, slave bool) Mode {
	if complete {
		return Complete{Slave: slave}
	}
	return Incremental{}
}

// Incremental sends, and merges, the bytes each node changed.
type Incremental struct{}

// Create appends the bytes of the dirty pages that differ from their twins.
func (Incremental) Create(d *delta.Delta, mem []byte, pages []int, tw Twins) {
	ps := tw.PageSize()
	pagemem.Populate(d.Reserve(len(pages) * ps))
	for _, p := range pages {
		off := p * ps
		delta.Diff(d, uint64(off), mem[off:off+ps], tw.Twin(p))
	}
}

// Received returns d: a slave's delta already holds only changed bytes.
func (Incremental) Received(d *delta.Delta, _ Twins) *delta.Delta { return d }

// BroadcastAll is false: each slave gets the merged delta less its own.
func (Incremental) BroadcastAll() bool { return false }

// Outgoing returns merged.
func (Incremental) Outgoing(merged *delta.Delta, _ []byte) *delta.Delta { return merged }

// Complete is the paper's complete-checkpoint baseline: a slave sends every
// page the complete monitor reports (all of the extent), which the master
// reduces to the changed bytes before merging, and the master sends every
// slave the whole extent. The master's own delta is incremental.
type Complete struct{ Slave bool }

// Create appends the dirty pages whole on a slave, their changed bytes on
// the master.
func (c Complete) Create(d *delta.Delta, mem []byte, pages []int, tw Twins) {
	if !c.Slave {
		Incremental{}.Create(d, mem, pages, tw)
		return
	}
	ps := tw.PageSize()
	for _, p := range pages {
		off := p * ps
		delta.AppendFull(d, uint64(off), mem[off:off+ps])
	}
}

// Received reduces a slave's complete checkpoint to the delta it stands
// for, against the master's twins (which equal the slave's entry state),
// in a new delta.
func (Complete) Received(full *delta.Delta, tw Twins) *delta.Delta {
	ps := tw.PageSize()
	d := &delta.Delta{}
	d.Reset(full.Region, full.Node)
	for _, run := range full.Runs {
		for o := 0; o < len(run.Data); o += ps {
			off := int(run.Off) + o
			end := min(o+ps, len(run.Data))
			p := off / ps
			twin := tw.Twin(p)[off-p*ps:]
			delta.Diff(d, uint64(off), run.Data[o:end], twin[:end-o])
		}
	}
	return d
}

// BroadcastAll is true: the baseline sends every slave the whole extent.
func (Complete) BroadcastAll() bool { return true }

// Outgoing is the whole of mem, as a new delta.
func (Complete) Outgoing(merged *delta.Delta, mem []byte) *delta.Delta {
	full := &delta.Delta{}
	full.Reset(merged.Region, delta.Merged)
	delta.AppendFull(full, 0, mem)
	return full
}
