package cape

import (
	"github.com/cape-go/cape/cape/internal/exchange"
)

// checkpointer is the checkpoint mode of a multi-node job
// (exchange.Mode), chosen once when the node joins: incremental, or the
// paper's complete baseline with the complete monitor backend.
type checkpointer = exchange.Mode

// incremental is the default checkpoint mode.
type incremental = exchange.Incremental
