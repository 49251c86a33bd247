package catchup

import (
	"errors"
	"fmt"
	"time"

	"github.com/cape-go/cape/cape/internal/roster"
)

// Poll is how often a joining node that caught up with the log looks for
// new records and for the master's answer (Sleep).
const Poll = time.Millisecond

// Action is what the driver does next.
type Action uint8

// The actions. Share, Join, Compute and Replay end the region's Next
// calls: the driver runs the region.
const (
	Share   Action = iota + 1 // take a share of the region, as the slave the node is
	Join                      // the node's first region as a slave: Joined, then take a share
	Compute                   // compute the region: it comes before the pending image's point
	Replay                    // inject the region's logged result
	Follow                    // read the log's new records, then Followed
	Ask                       // send the request to be admitted (Request), then Asked
	Listen                    // look for the master's answer without waiting, then Heard or Silent
	Sleep                     // nothing new yet: sleep Poll, then Next
)

var actionNames = [...]string{Share: "share", Join: "join", Compute: "compute", Replay: "replay",
	Follow: "follow", Ask: "ask", Listen: "listen", Sleep: "sleep"}

func (a Action) String() string {
	if int(a) < len(actionNames) && actionNames[a] != "" {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// phase is where a Joiner is in its look at the current region.
type phase uint8

const (
	phaseDone   phase = iota // the region's action was returned (or no region began yet)
	phaseBegin               // Begin was called
	phaseFollow              // Follow returned, Followed not called yet
	phaseAsk                 // the log was read: ask, if it is time
	phaseListen              // Listen returned, Heard or Silent not called yet
	phaseCheck               // the answer was looked for: replay, join or sleep
)

// Joiner is a joining node's state. The zero value is not ready: use New.
// It is not safe for concurrent use.
type Joiner struct {
	rank  int       // this node's rank
	start time.Time // the node's start of joining

	phase    phase
	done     Action // the region's action, once returned
	seq      uint64 // the current region
	replayTo uint64 // the log holds regions up to replayTo
	pending  bool   // an image is pending: regions before its point compute

	catchup roster.Catchup // when to ask
	asked   bool           // the request to be admitted was sent
	at      uint64         // admitted: the live set names this node from region at+1
	live    []int          // admitted: that live set

	slave  bool          // admitted and past region at: an ordinary slave
	first  uint64        // the first region this node took a share of
	shares int           // regions it took a share of
	joinAt time.Duration // from start to its first share
}

// New returns the state of a node of rank rank that began joining at
// start.
func New(rank int, start time.Time) *Joiner {
	return &Joiner{rank: rank, start: start}
}

// Begin starts region seq, with the log holding regions up to replayTo and
// an image pending or not.
func (j *Joiner) Begin(seq, replayTo uint64, pending bool) {
	j.phase, j.done, j.seq, j.replayTo, j.pending = phaseBegin, 0, seq, replayTo, pending
}

// Next returns what the driver does next at now (the clock is only read
// for roster.Catchup's decision to ask). Once it returned the region's
// action, it returns it again until the next Begin; before the first Begin
// it returns 0, no action.
func (j *Joiner) Next(now time.Time) Action {
	for {
		switch j.phase {
		case phaseBegin:
			switch {
			case j.slave:
				j.shares++
				return j.end(Share)
			case j.pending:
				return j.end(Compute) // regions before the log's image compute, as on restart
			}
			j.phase = phaseFollow
		case phaseFollow:
			if j.admittedHere() {
				return j.end(Join)
			}
			return Follow
		case phaseAsk:
			switch {
			case j.pending:
				return j.end(Compute) // the log was compacted: compute up to its image's point
			case j.asked:
				j.phase = phaseListen
			case j.catchup.ShouldAsk(j.seq, j.replayTo, now):
				return Ask
			default:
				j.phase = phaseCheck
			}
		case phaseListen:
			return Listen
		case phaseCheck:
			switch {
			case j.admittedHere():
				j.phase = phaseFollow // and on to Join
			case j.seq <= j.replayTo:
				return j.end(Replay)
			default:
				j.phase = phaseFollow
				return Sleep
			}
		default:
			return j.done // the region's action again, or none before the first Begin
		}
	}
}

// end ends the region's Next calls with a.
func (j *Joiner) end(a Action) Action {
	j.phase, j.done = phaseDone, a
	return a
}

// admittedHere reports whether the master admitted this node from the
// current region.
func (j *Joiner) admittedHere() bool { return j.live != nil && j.seq == j.at+1 }

// Followed reports the log after Follow: it holds regions up to replayTo
// (never fewer than before), and an image is pending or not.
func (j *Joiner) Followed(replayTo uint64, pending bool) {
	j.replayTo, j.pending = max(j.replayTo, replayTo), pending
	if j.phase == phaseFollow {
		j.phase = phaseAsk
	}
}

// Request is the number of regions the node replayed, which its request
// to be admitted carries.
func (j *Joiner) Request() uint64 { return j.seq - 1 }

// Asked reports that the request to be admitted was sent.
func (j *Joiner) Asked() {
	j.asked = true
	if j.phase == phaseAsk {
		j.phase = phaseListen
	}
}

// Silent reports that no answer came after Listen.
func (j *Joiner) Silent() {
	if j.phase == phaseListen {
		j.phase = phaseCheck
	}
}

// Heard reports the master's answer after Listen: the live set live from
// region at+1 on. It must name this node and begin no earlier than the
// current region (roster.CheckAdmission); an error ends the joining.
func (j *Joiner) Heard(live []int, at uint64) error {
	if err := roster.CheckAdmission(live, j.rank, at, j.seq); err != nil {
		return err
	}
	j.at, j.live = at, live
	if j.phase == phaseListen {
		j.phase = phaseCheck
	}
	return nil
}

// Admitted reports whether the master admitted this node (it may not have
// taken its first share yet).
func (j *Joiner) Admitted() bool { return j.live != nil }

// AdoptImage reports whether the node may restore the image a compacted
// log starts with, instead of replaying the regions the compaction removed:
// not once it asked to be admitted, since the master may admit it from any
// region now, which it would have to replay from the log.
func (j *Joiner) AdoptImage() error {
	if j.asked {
		return errors.New("this node had asked to be admitted: start it again")
	}
	return nil
}

// Joined makes the node a slave at the start of its first region (after
// Join), at now: it returns the live set it adopts and the notice that
// says so.
func (j *Joiner) Joined(now time.Time) (live []int, notice string) {
	j.slave, j.first, j.shares = true, j.seq, 1
	j.joinAt = now.Sub(j.start)
	return j.live, fmt.Sprintf("joined the job: takes a share of region #%d on, %v after it started (replayed regions #1 to #%d from the log)",
		j.seq, roster.Short(j.joinAt), j.at)
}

// Slave reports whether the node took a share of a region.
func (j *Joiner) Slave() bool { return j.slave }

// Summary is what a joined node reports at its end, or "" for a node that
// never took a share.
func (j *Joiner) Summary() string {
	if !j.slave {
		return ""
	}
	return fmt.Sprintf("joined after %v; took a share of %s (#%d to #%d)",
		roster.Short(j.joinAt), roster.Plural(j.shares, "region"), j.first, j.first+uint64(j.shares)-1)
}
