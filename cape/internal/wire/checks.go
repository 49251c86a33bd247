package wire

import (
	"fmt"

	"github.com/cape-go/cape/transport"
)

// FromMaster checks a message a slave received in region seq when it
// expects kind want, once the messages that end the slave's part (done,
// abort, leave: the caller's to report) are set apart: another kind, or
// another region, is refused.
func FromMaster(msg transport.Message, want uint8, seq uint64) error {
	switch {
	case msg.Kind != want:
		return fmt.Errorf("the master sent message kind %d (%s), want %d (%s)", msg.Kind, Name(msg.Kind), want, Name(want))
	case msg.Seq != seq:
		return fmt.Errorf("the master sent a message for region #%d", msg.Seq)
	}
	return nil
}

// FromSlave checks a message the master received from rank in region
// seq: the slave's result, of kind commit (a delta, or a notice under
// distributed homes), or (dynamic is true: during a dynamic loop) a chunk
// request.
func FromSlave(msg transport.Message, rank int, seq uint64, dynamic bool, commit uint8) error {
	switch {
	case msg.Seq != seq:
		return fmt.Errorf("node %d sent message kind %d for region #%d, want #%d", rank, msg.Kind, msg.Seq, seq)
	case msg.Kind == commit, dynamic && msg.Kind == ChunkReq:
		return nil
	case dynamic:
		return fmt.Errorf("node %d sent message kind %d during a dynamic loop", rank, msg.Kind)
	}
	return fmt.Errorf("node %d sent message kind %d, want a %s", rank, msg.Kind, Name(commit))
}
