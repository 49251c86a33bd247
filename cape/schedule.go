package cape

import (
	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// requestChunk asks the master for the next chunk of the region's dynamic
// or guided loop (slave); an empty one means there is none left. The
// master's side is the roster (reexec.go).
func (r *Region) requestChunk() (roster.Unit, error) {
	if err := r.n.slave.Send(transport.Message{Kind: wire.ChunkReq, Seq: r.seq}); err != nil {
		return roster.Unit{}, err
	}
	msg, err := r.recvFromMaster(wire.Chunk)
	if err != nil {
		return roster.Unit{}, err
	}
	lo, hi, err := wire.ParseChunk(msg.Payload, r.count)
	return roster.Unit{Lo: lo, Hi: hi}, err
}
