package cape

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/cape-go/cape/cape/internal/ending"
	"github.com/cape-go/cape/internal/nodeenv"
)

// Errors that end a node without being its fault (package ending). A
// slave's receive returns them; Must turns them into the node's exit.
var (
	// ErrJobDone means the master's program ended while this node was still
	// in a region: the node has nothing left to do and ends with status 0.
	ErrJobDone = ending.ErrJobDone
	// ErrJobAborted means the master stopped the job because a node failed;
	// the node ends with status 1.
	ErrJobAborted = ending.ErrJobAborted
	// ErrLeft means the master declared this node lost (it was too slow, or
	// silent for too long) and re-ran its work elsewhere: the node's later
	// messages are refused, and it ends with status LeftExit.
	ErrLeft = ending.ErrLeft
)

// LeftExit is the exit status of a node the master declared lost.
const LeftExit = ending.LeftExit

// fail ends the node because of err, as ending.Of decides: an error that is
// not this node's failure (the job ended or was aborted, the node was
// declared lost) ends it in order after Finalize; any other error is this
// node's failure, which the master reports to the slaves before ending.
func fail(err error) {
	e := ending.Of(err, self != nil && self.rank > 0 && self.members.Tolerant())
	if self != nil && self.homes != nil {
		self.homes.doneSeen = true // leaving: Finalize waits for no end of job
		// Declared lost: the master may still need this node's pages,
		// which, with self replicas, only its helper has.
		self.homes.lost = errors.Is(err, ErrLeft)
	}
	if !e.Failure {
		_ = Finalize()
		exit(e.Code, e.Msg)
	}
	if self != nil && self.size > 1 {
		self.cfg.ReportFailure(err) // tells the launcher which node the error points to
		self.abort(fmt.Sprintf("cape: %s: %v", self.name, err))
	}
	exit(e.Code, e.Msg)
}

// exit is the runtime's one way out of the process: Must, EndLast, the
// watchdogs (lost master, closed lifeline) and fault injection end here. It
// prints msg, if any, on stderr naming this node, and exits with code.
func exit(code int, msg string) {
	statsOut.Flush()
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
	e := ending.MasterGone(n.slave.Err())
	exit(e.Code, e.Msg)
}

// watchLifeline ends the node when the launcher's lifeline (see nodeenv)
// reaches its end: the launcher, or the ssh connection it started the node
// through, has gone away.
func watchLifeline(f io.Reader) {
	_, _ = io.Copy(io.Discard, f)
	exit(nodeenv.LifelineExit, "the launcher's connection closed; stopping")
}

// MainUnwinding is called by the translated main's deferred function when
// main ends without returning: a panic, a panic that one of main's own
// deferred functions recovered, or runtime.Goexit. A panic (recovered or
// not) ends the process as it would under go run, with its own status, so
// the master tells the launcher that this status is the program's, not a
// failure of the job's (a slave lost meanwhile does not change it).
//
// Goexit alone does not end the process: under go run the program then
// ends with a fatal "no goroutines" error once its other goroutines have,
// but the runtime's own goroutines never end. So if the process is still
// there after goexitWait, main called Goexit: the node leaves the job
// (Finalize), and the master ends as go run does, status 2, a slave with
// status 0. The program's other goroutines are not waited for.
func MainUnwinding() {
	n := self
	if n == nil {
		return
	}
	if n.rank == 0 && n.size > 1 {
		n.cfg.ReportEnded("unwound")
	}
	_ = n.tellLostOutput() // a panic's status is never 0
	go func() {
		time.Sleep(goexitWait)
		err := Finalize()
		if n.rank != 0 {
			exit(0, "")
		}
		if err != nil {
			notice("cape: %s: %v\n", n.name, err)
		}
		notice("fatal error: no goroutines (main called runtime.Goexit) - deadlock!\n")
		exit(2, "")
	}()
}

// Panicking reports whether the deferred function that calls it runs
// because a panic is in flight: the runtime's panic is then among the
// caller's callers. A panic recovered before the call, a return and
// runtime.Goexit report false. The translated main asks it instead of
// recovering and panicking again, which under go 1.23 and later marks the
// panic "[recovered, repanicked]" and puts the generated function on top
// of the trace, at a line of the program it has nothing to do with.
func Panicking() bool {
	var pcs [8]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			return true
		}
		if !more {
			return false
		}
	}
}

// goexitWait is how long MainUnwinding waits for the process to end by a
// panic before it takes main's end for runtime.Goexit.
const goexitWait = time.Second

// Exiting is called by the translated program on the argument of its
// os.Exit: it leaves the job (Finalize), knowing the status, and returns
// code for os.Exit.
func Exiting(code int) int {
	ExitCode(code)
	Must(Finalize())
	return code
}

// ExitCode records the status the program is about to end with: the
// translated program calls it before log's Fatal functions (code 1) and
// their Finalize, and Exiting calls it. Where the program ends inside a
// region with status 0 and the region's output cannot be complete (other
// nodes ran earlier iterations), Finalize then fails the job instead of
// ending it with status 0 and an output that differs from go run's.
func ExitCode(code int) {
	if n := self; n != nil {
		n.exitCode = code
	}
}
