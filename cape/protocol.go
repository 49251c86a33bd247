package cape

// The runtime's protocol is internal/wire's; here is the mapping of the
// master's messages that end a slave's part to the package's errors.

import (
	"fmt"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// Names of wire's kinds and codecs that only reexec.go, membership.go,
// join.go and join_node.go still use: to be replaced by wire's (wire.X, and
// wire.ParseLive with maxJoiners) once those files' branch is merged.
const (
	kindDelta = wire.Delta
	kindChunk = wire.Chunk
	kindDone  = wire.Done
	kindLive  = wire.Live
	kindLeave = wire.Leave
	kindJoin  = wire.Join
)

func chunkPayload(lo, hi int) []byte { return wire.ChunkPayload(lo, hi) }

func livePayload(live []int) []byte { return wire.LivePayload(live) }

func parseLive(p []byte, prev []int, first int) ([]int, error) {
	return wire.ParseLive(p, prev, first, maxJoiners)
}

func fromSlave(msg transport.Message, rank int, seq uint64, dynamic bool) error {
	return wire.FromSlave(msg, rank, seq, dynamic)
}

// fromMaster checks a message a slave received in region seq when it
// expects kind want. The master's end of the program, its abort and its
// declaring this node lost come back as ErrJobDone, ErrJobAborted and
// ErrLeft.
func fromMaster(msg transport.Message, want uint8, seq uint64) error {
	switch msg.Kind {
	case wire.Abort:
		return fmt.Errorf("%w (%s)", ErrJobAborted, msg.Payload)
	case wire.Leave:
		return fmt.Errorf("%w (%s)", ErrLeft, msg.Payload)
	case wire.Done:
		return ErrJobDone
	}
	return wire.FromMaster(msg, want, seq)
}
