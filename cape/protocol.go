package cape

// The runtime's protocol is internal/wire's; here is the mapping of the
// master's messages that end a slave's part to the package's errors.

import (
	"fmt"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// fromMaster checks a message a slave received in region seq when it
// expects kind want. The master's end of the program, its abort and its
// declaring this node lost come back as ErrJobDone, ErrJobAborted and
// ErrLeft.
func fromMaster(msg transport.Message, want uint8, seq uint64) error {
	switch msg.Kind {
	case wire.Abort:
		// The master prints its error in full; a slave names it, short.
		why := string(msg.Payload)
		if r := []rune(why); len(r) > 100 {
			why = string(r[:100]) + "…"
		}
		return fmt.Errorf("%w by the master (%s)", ErrJobAborted, why)
	case wire.Leave:
		return fmt.Errorf("%w (%s)", ErrLeft, msg.Payload)
	case wire.Done:
		return ErrJobDone
	}
	return wire.FromMaster(msg, want, seq)
}
