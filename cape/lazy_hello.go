package cape

import (
	"fmt"

	"github.com/cape-go/cape/cape/internal/wire"
)

// collectHellos receives every slave's answer to the start-up's lazy phase
// (a lazyHello message), in rank order, and reads it with parse: whether
// the slave can take lazy pages. It returns the ranks and their answers.
func (n *node) collectHellos(parse func(rank int, p []byte) (bool, error)) (ranks []int, capable []bool, err error) {
	ranks, capable = make([]int, 0, n.size-1), make([]bool, 0, n.size-1)
	for rank := 1; rank < n.size; rank++ {
		msg, err := n.master.Recv(rank)
		if err != nil {
			return nil, nil, err
		}
		var ok bool
		var perr error
		if msg.Kind == wire.LazyHello {
			ok, perr = parse(rank, msg.Payload)
		}
		if msg.Kind != wire.LazyHello || perr != nil {
			return nil, nil, fmt.Errorf("node %d sent message kind %d (%d bytes), want its answer", rank, msg.Kind, len(msg.Payload))
		}
		ranks, capable = append(ranks, rank), append(capable, ok)
	}
	return ranks, capable, nil
}

// replaceLazyTracker closes the node's monitor.Lazy, which the job does not
// use, and creates the backend's plain tracker instead; closers (a helper
// started for it) are closed with it.
func (n *node) replaceLazyTracker(closers ...interface{ Close() error }) error {
	err := n.tracker.Close()
	for _, c := range closers {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("close the lazy tracker: %w", err)
	}
	return n.newPlainTracker()
}
