package cape

import (
	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/monitor"
)

// willInject tells the node's tracker, when it wants to know
// (monitor.Injector), that the runs of d are about to be written into the
// arena between regions (exchange.Prepare). Large runs are also populated
// beforehand, but not on a node with lazy pages, where a page it lacks is
// fetched, not populated. It allocates nothing.
func (n *node) willInject(d *delta.Delta) error {
	inj, ok := n.tracker.(monitor.Injector)
	if !ok {
		return nil
	}
	_, lazy := n.tracker.(monitor.Lazy)
	return exchange.Prepare(d, n.arena.Bytes(), inj, !lazy)
}
