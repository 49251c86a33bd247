package exchange

import (
	"fmt"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/pagemem"
)

// PopulateMin is the smallest run Prepare populates: below it, the call
// costs about what the faults it saves do, and most small runs land on
// pages in memory.
const PopulateMin = 64 << 10

// Injector is told of the arena's bytes about to be written between
// regions (monitor.Injector satisfies it).
type Injector interface {
	WillWrite(off, n int) error
}

// Prepare readies mem, the arena, for the injection of d: inj is told of
// every run (the pages the monitor keeps write-protected are then
// unprotected beforehand, so that the injection takes no write fault), and
// with populate the runs of PopulateMin bytes or more inside mem are
// populated beforehand (on the master, the other nodes' share of an array
// is often memory it never touched, which would take a fault per page).
// It allocates nothing.
func Prepare(d *delta.Delta, mem []byte, inj Injector, populate bool) error {
	for _, run := range d.Runs {
		if err := inj.WillWrite(int(run.Off), len(run.Data)); err != nil {
			return fmt.Errorf("prepare the injection: %w", err)
		}
		if populate && len(run.Data) >= PopulateMin && run.End() <= uint64(len(mem)) {
			pagemem.Populate(mem[run.Off:run.End()])
		}
	}
	return nil
}
