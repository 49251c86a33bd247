package ending

import (
	"errors"
	"fmt"

	"github.com/cape-go/cape/transport"
)

// Errors that end a node without being its fault. A slave's receive
// returns them; the runtime turns them into the node's exit (Of).
var (
	// ErrJobDone means the master's program ended while this node was still
	// in a region: the node has nothing left to do and ends with status 0.
	ErrJobDone = errors.New("the master ended the job")
	// ErrJobAborted means the master stopped the job because a node failed;
	// the node ends with status 1.
	ErrJobAborted = errors.New("the job was aborted")
	// ErrLeft means the master declared this node lost (it was too slow, or
	// silent for too long) and re-ran its work elsewhere: the node's later
	// messages are refused, and it ends with status LeftExit.
	ErrLeft = errors.New("the master declared this node lost")
)

// LeftExit is the exit status of a node the master declared lost.
const LeftExit = 4

// Ending is how a node ends: with status Code after printing Msg ("" for
// none). Failure is true when the error is the node's own failure, which
// the master reports to the slaves (and the launcher learns of) before it
// exits; otherwise the node finalises first, in order.
type Ending struct {
	Code    int
	Msg     string
	Failure bool
}

// Of returns how a node ends because of err. tolerantSlave is true for a
// slave of a job that survives the loss of nodes (--max-lost), whose
// connection the master may close in order.
func Of(err error, tolerantSlave bool) Ending {
	switch {
	case errors.Is(err, ErrJobDone):
		return Ending{Code: 0}
	case errors.Is(err, ErrJobAborted):
		return Ending{Code: 1, Msg: "stopping: " + err.Error()}
	case errors.Is(err, ErrLeft):
		return Ending{Code: LeftExit, Msg: err.Error() + "; exiting"}
	case tolerantSlave && errors.Is(err, transport.ErrPeerClosed):
		// The master closed this node's connection in order: the job
		// ended, or the master declared this node lost (a straggler
		// back too late); either way its work is done elsewhere.
		return Ending{Code: LeftExit, Msg: "the master closed the connection (the job ended, or this node was declared lost); exiting"}
	}
	return Ending{Code: 1, Msg: err.Error(), Failure: true}
}

// MasterGone returns how a slave ends whose connection to the master died
// with err while the program was busy elsewhere: an orderly goodbye means
// the master's program ended, and the slave's remaining work is moot.
func MasterGone(err error) Ending {
	if errors.Is(err, transport.ErrPeerClosed) {
		return Ending{Code: 0}
	}
	return Ending{Code: 1, Msg: fmt.Sprintf("lost the master: %v", err)}
}
