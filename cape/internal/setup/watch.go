package setup

import "time"

// WatchGrace is how long a slave's watchdogs leave the program to notice a
// lost master by itself (in a receive, with the precise message) before
// they end the node.
const WatchGrace = 500 * time.Millisecond

// A Verdict is what the runtime does about a failure it was told of.
type Verdict uint8

const (
	Ignore Verdict = iota // nothing: the job is ending, or the failure is already handled
	Notify                // print a notice; the job goes on
	Fail                  // end the job with the error
)

// InputFailed is what a failure of a slave's input stream does, told to the
// master: nothing once the job ends (closing) or the slave was declared
// lost; a notice where the job survives losses (tolerant: the slave's
// input stopped, so it fails by itself and is lost like any failed node);
// otherwise the job's end.
func InputFailed(closing, lost, tolerant bool) Verdict {
	switch {
	case closing, lost:
		return Ignore
	case tolerant:
		return Notify
	}
	return Fail
}

// OwnInputFailed is what a failure of this slave's own input stream does,
// judged once WatchGrace has passed: nothing when its connection to the
// master is dead too (the master watchdog says how the master went, as it
// would without input) or the job is ending; otherwise the node's end.
func OwnInputFailed(masterDead, closing bool) Verdict {
	if masterDead || closing {
		return Ignore
	}
	return Fail
}
