package cape

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/transport"
)

// Errors that end a node without being its fault. A slave's receive returns
// them; Must turns them into the node's exit.
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

// fail ends the node because of err: ErrJobDone ends it quietly with status
// 0, ErrJobAborted with status 1 after closing its connection gracefully
// (relay children get the master's message too); any other error is this
// node's failure, which the master reports to the slaves before ending.
func fail(err error) {
	switch {
	case errors.Is(err, ErrJobDone):
		_ = Finalize()
		exit(0, "")
	case errors.Is(err, ErrJobAborted):
		_ = Finalize()
		exit(1, "stopping: "+err.Error())
	case errors.Is(err, ErrLeft):
		_ = Finalize()
		exit(LeftExit, err.Error()+"; exiting")
	case self != nil && self.rank > 0 && self.members.Tolerant() && errors.Is(err, transport.ErrPeerClosed):
		// The master closed this node's connection in order: the job
		// ended, or the master declared this node lost (a straggler
		// back too late); either way its work is done elsewhere.
		_ = Finalize()
		exit(LeftExit, "the master closed the connection (the job ended, or this node was declared lost); exiting")
	}
	if self != nil && self.size > 1 {
		self.cfg.ReportFailure(err) // tells the launcher which node the error points to
		self.abort(fmt.Sprintf("cape: %s: %v", self.name, err))
	}
	exit(1, err.Error())
}

// exit is the runtime's one way out of the process: Must, EndLast, the
// watchdogs (lost master, closed lifeline) and fault injection end here. It
// prints msg, if any, on stderr naming this node, and exits with code.
func exit(code int, msg string) {
	flushStats()
	if msg != "" {
		who := "cape"
		if self != nil && self.size > 1 {
			who = "cape: " + self.name
		}
		notice("%s: %s\n", who, msg)
	}
	os.Exit(code)
}

// watchMaster ends a slave whose connection to the master is gone while the
// program is busy elsewhere (computing its share, or in sequential code), so
// that a node cut off from the job does not outlive it. An orderly goodbye
// means the master's program has ended: the slave's remaining work is moot
// and it exits with status 0.
func (n *node) watchMaster() {
	<-n.slave.Dead()
	time.Sleep(watchGrace)
	if n.closing.Load() {
		return
	}
	err := n.slave.Err()
	if errors.Is(err, transport.ErrPeerClosed) {
		exit(0, "")
	}
	exit(1, fmt.Sprintf("lost the master: %v", err))
}

// watchLifeline ends the node when the launcher's lifeline (see nodeenv)
// reaches its end: the launcher, or the ssh connection it started the node
// through, has gone away.
func watchLifeline(f io.Reader) {
	_, _ = io.Copy(io.Discard, f)
	exit(nodeenv.LifelineExit, "the launcher's connection closed; stopping")
}
