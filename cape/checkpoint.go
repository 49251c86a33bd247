package cape

import (
	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/monitor"
)

// checkpointer is the checkpoint mode of a multi-node job
// (exchange.Mode), chosen once when the node joins: incremental, or the
// paper's complete baseline with the complete monitor backend.
type checkpointer = exchange.Mode

// incremental is the default checkpoint mode.
type incremental = exchange.Incremental

// newCheckpointer returns the checkpoint mode for a node of rank rank
// using the monitor backend named backend (as configured).
func newCheckpointer(backend string, rank int) checkpointer {
	return exchange.NewMode(backend == monitor.BackendComplete, rank != 0)
}
