package cape

import (
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// requestChunk asks the master for the next chunk of a dynamic or guided
// loop of count iterations (slave); lo = hi means there is none left. The
// master's side is the roster (reexec.go).
func (r *Region) requestChunk(count int) (lo, hi int, err error) {
	if err := r.n.slave.Send(transport.Message{Kind: wire.ChunkReq, Seq: r.seq}); err != nil {
		return 0, 0, err
	}
	msg, err := r.recvFromMaster(wire.Chunk)
	if err != nil {
		return 0, 0, err
	}
	return wire.ParseChunk(msg.Payload, count)
}
