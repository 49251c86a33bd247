package cape

// The runtime's protocol lives in internal/wire: the kinds of the messages
// nodes exchange, their payloads, the checks every received message passes
// before anything in it is used, and the start-up sequence. Here are the
// runtime's names for them, and the mapping of the master's messages that
// end a slave's part to the package's errors.

import (
	"fmt"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// Message kinds of the job's connection (wire.Kinds numbers them all).
const (
	kindDelta     = wire.Delta
	kindMerged    = wire.Merged
	kindChunkReq  = wire.ChunkReq
	kindChunk     = wire.Chunk
	kindDone      = wire.Done
	kindAbort     = wire.Abort
	kindLive      = wire.Live
	kindLeave     = wire.Leave
	kindReplay    = wire.Replay
	kindImage     = wire.Image
	kindJoin      = wire.Join
	kindLazyHello = wire.LazyHello
	kindLazyInfo  = wire.LazyInfo
	kindStdinInfo = wire.StdinInfo
)

type outEnvelope = wire.OutEnvelope

func appendEnvelope(dst []byte, d *delta.Delta, vals []byte, c delta.Compression) ([]byte, error) {
	return wire.AppendEnvelope(dst, d, vals, c)
}

func openEnvelope(p []byte, lim delta.Limits) ([]byte, *delta.Delta, error) {
	return wire.OpenEnvelope(p, lim)
}

func openEnvelopeRef(p []byte, d *delta.Delta, lim delta.Limits) ([]byte, error) {
	return wire.OpenEnvelopeRef(p, d, lim)
}

func checkLabel(d *delta.Delta, seq uint64, node int) error { return wire.CheckLabel(d, seq, node) }

func pack(pieces func(value) []byte, vals []value) []byte { return wire.Pack(pieces, vals) }

func unpackValues(b []byte, n int) ([][]byte, []byte, error) { return wire.UnpackValues(b, n) }

func unpack(b []byte, n int) ([][]byte, error) { return wire.Unpack(b, n) }

func chunkPayload(lo, hi int) []byte { return wire.ChunkPayload(lo, hi) }

func parseChunk(p []byte, count int) (int, int, error) { return wire.ParseChunk(p, count) }

func livePayload(live []int) []byte { return wire.LivePayload(live) }

// parseLive reads a live set that replaces prev, where nodes that joined
// the running job hold ranks from first on (first ≤ 0: none may have).
func parseLive(p []byte, prev []int, first int) ([]int, error) {
	return wire.ParseLive(p, prev, first, maxJoiners)
}

// fromMaster checks a message a slave received in region seq when it
// expects kind want. The master's end of the program, its abort and its
// declaring this node lost come back as ErrJobDone, ErrJobAborted and
// ErrLeft.
func fromMaster(msg transport.Message, want uint8, seq uint64) error {
	switch msg.Kind {
	case kindAbort:
		return fmt.Errorf("%w (%s)", ErrJobAborted, msg.Payload)
	case kindLeave:
		return fmt.Errorf("%w (%s)", ErrLeft, msg.Payload)
	case kindDone:
		return ErrJobDone
	}
	return wire.FromMaster(msg, want, seq)
}

func fromSlave(msg transport.Message, rank int, seq uint64, dynamic bool) error {
	return wire.FromSlave(msg, rank, seq, dynamic)
}
