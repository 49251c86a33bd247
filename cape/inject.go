package cape

import (
	"fmt"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/pagemem"
	"github.com/cape-go/cape/monitor"
)

// populateMin is the smallest run willInject populates: below it, the call
// costs about what the faults it saves do, and most small runs land on
// pages in memory.
const populateMin = 64 << 10

// willInject tells the node's tracker, when it wants to know
// (monitor.Injector), that the runs of d are about to be written into the
// arena between regions: the pages it keeps write-protected are then
// unprotected beforehand, so that the injection takes no write fault (tens
// of microseconds a page on a paravirtualized machine). It allocates
// nothing.
//
// Large runs are also populated beforehand (pagemem.Populate): on the master, the
// other nodes' share of an array is often memory it never touched, which
// would take a fault per page. Not on a node with lazy pages, where a page
// it lacks is fetched, not populated.
func (n *node) willInject(d *delta.Delta) error {
	inj, ok := n.tracker.(monitor.Injector)
	if !ok {
		return nil
	}
	_, lazy := n.tracker.(monitor.Lazy)
	mem := n.arena.Bytes()
	for _, run := range d.Runs {
		if err := inj.WillWrite(int(run.Off), len(run.Data)); err != nil {
			return fmt.Errorf("prepare the injection: %w", err)
		}
		if !lazy && len(run.Data) >= populateMin && run.End() <= uint64(len(mem)) {
			pagemem.Populate(mem[run.Off:run.End()])
		}
	}
	return nil
}
