// Package roster holds the master's decisions about a region's units and
// the job's nodes, as a state machine that does no I/O and reads no clock
// (etcd raft's model): the driver (package cape) feeds it events — a
// region begins, a slave's message arrives, a connection fails, the
// master's loop asks for its next unit, time passed — with Step, and
// carries out the actions it queues (Ready): send a chunk, keep a delta,
// run a unit, wait, declare a node lost, tell a straggler to leave, drop a
// connection, report. It never exits, never prints and holds no pointer
// into the runtime.
//
// Re-execution (PY-PITS, seed 003): running a unit from the region's entry
// state is idempotent, committing it is not. A slave whose connection
// fails before its delta arrived is lost: its delta is discarded whole and
// its units are re-run — by the master after its own units, and for
// dynamic and guided loops by any survivor asking for a chunk. A delta is
// committed once: the first to arrive; a node declared lost cannot commit
// (its late messages are refused). A slave whose current unit ran for
// max(StragglerFactor × the median unit time, StragglerFloor) while the
// master had nothing left to run is declared lost the same way, rather than
// raced, so that a reduction partial is never committed twice.
//
// A slave's side of a region's units is SlaveUnits: its static units, or
// the chunks the master hands out.
//
// The job's membership (Members) is the live set, the losses and the
// --max-lost policy; it changes only at region boundaries (Survivors,
// Admit). Nodes joining a running job are admitted there (Joins,
// JoinRefusal, AdmittedLive) once they have caught up with the job's log
// (Catchup). The texts of the master's notices about its nodes are made
// here too (text.go), so that the scripts in testdata check them; the
// driver writes them.
//
// Lock order: Joins locks itself and holds its lock in no call out; a
// Roster and its Members are not safe for concurrent use: the driver
// serialises them (cape's rosterDriver.mu, then node.lossMu) and carries
// the actions out after releasing its locks.
package roster

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Unit is a share of a region's iterations, [Lo, Hi); section s is
// [s, s+1).
type Unit struct{ Lo, Hi int }

// The straggler threshold is max(StragglerFactor × median unit time,
// StragglerFloor): a unit running four times the median is a node that is
// stopped, swapping or starved, unless the node is still heard from
// (StragglerSilence); the floor keeps short regions, where timing noise
// exceeds the units' times, from declaring healthy nodes lost, and stays
// well below the peer timeout (10s by default).
const (
	StragglerFactor = 4
	StragglerFloor  = 2 * time.Second
	// StragglerSilence: where the roster is told how long each slave has
	// been silent (Roster.Silence), a unit past the threshold makes a
	// straggler only if nothing, not even a heartbeat, came from its node
	// for this long: a node that is busy with a unit larger than the
	// others (a triangular loop's last block) keeps sending heartbeats
	// and is waited for, a stopped or starved one is not.
	StragglerSilence = time.Second
)

// Region describes a region to the roster when it begins.
type Region struct {
	Seq     uint64
	Count   int  // iterations (or sections)
	Chunk   int  // chunk size; ≤ 0 for static blocks
	Dynamic bool // dynamic or guided: chunks are handed out on request
	Guided  bool
	Nodes   int  // nodes sharing the region (guided chunk sizes)
	Rerun   bool // the region's units are known: a lost node's may be re-run
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Begin: region Region begins at At, shared by Members.Live.
	Begin EventKind = iota + 1
	// Recv: slave Rank's message of wire kind MsgKind for region MsgSeq
	// arrived, read by the receiver serving region Seq; Delta when it is
	// the slave's delta (else a chunk request), Err when it is malformed.
	Recv
	// Closed: slave Rank's connection failed (Err) while serving region Seq.
	Closed
	// NextUnit: the master's loop asks for its next unit at At.
	NextUnit
	// Tick: the master's loop waited Waited, until At, for the slaves.
	Tick
	// End: the region's exchange completed at At.
	End
)

// Event is one input to Step. Fields not named by the kind are zero.
type Event struct {
	Kind    EventKind
	Rank    int
	Seq     uint64
	At      time.Time
	Err     error
	Delta   bool
	MsgKind uint8
	MsgSeq  uint64
	Waited  time.Duration
	Region  Region
}

// ActionKind says what an Action asks of the driver.
type ActionKind uint8

const (
	// Chunk: send Rank the chunk Unit (empty at the end of the loop); the
	// receiver then waits for the slave's next message.
	Chunk ActionKind = iota + 1
	// Commit: keep Rank's delta, the one just received.
	Commit
	// Run: the master runs Unit (Redo: a lost node's).
	Run
	// Wait: the master's loop waits for a slave until At, then sends Tick.
	Wait
	// Done: the master's loop ends.
	Done
	// Declare: Rank is declared lost in region Seq: tell the launcher and
	// the input stream; keep its connection open to refuse its late
	// messages (Straggler), else drop it.
	Declare
	// Lost: report Rank lost at At, Into the region (Err), with its Units
	// going back to be re-run (by the master, or to the pool when Dynamic).
	Lost
	// Leave: tell straggler Rank, asynchronously, to leave the job.
	Leave
	// Refuse: report that Rank's late message (MsgKind, MsgSeq) is refused:
	// it was declared lost.
	Refuse
	// Drop: drop Rank's connection.
	Drop
	// Wake: a waiter on the roster (the master's loop, collect) may
	// proceed.
	Wake
	// Recovered: report that the region recovered from the loss of Ranks,
	// the first Took before its end, the master re-running Count units in
	// Reexec.
	Recovered
)

// Action is one output of Step, for the driver to carry out in order.
type Action struct {
	Kind      ActionKind
	Rank      int
	Seq       uint64
	At        time.Time
	Into      time.Duration // Lost: since the region began
	Err       error
	Unit      Unit
	Units     []Unit // Lost: valid until the next region
	Redo      bool
	Dynamic   bool
	Straggler bool
	MsgKind   uint8
	MsgSeq    uint64
	Ranks     []int // Recovered: valid until the next region
	Took      time.Duration
	Count     int // Recovered: units the master re-ran
	Reexec    time.Duration
}

// Roster is the master's record of one region's units, reset by each
// Begin (reusing its tables, so that a region allocates nothing for it).
// It owns the region's assignment of units to ranks and reads and updates
// the job's Members it was made with. It is not safe for concurrent use.
type Roster struct {
	members *Members
	silence func(rank int) time.Duration // Silence; nil: not known

	seq     uint64
	start   time.Time // when the region began
	count   int
	chunk   int
	dynamic bool
	guided  bool
	nodes   int
	recover bool // losses may be survived: the master re-runs lost units

	slaves    []int           // the region's live slaves
	mine      []Unit          // the master's own static units not run yet
	nextLo    int             // dynamic: first iteration not handed out
	given     [][]Unit        // by rank: units assigned or handed out
	began     []time.Time     // by rank: when its current unit began
	done      []bool          // by rank: its delta was committed
	out       []bool          // by rank: lost in this region
	redo      []Unit          // units of lost slaves not re-run yet
	pending   int             // slaves neither committed nor lost
	lostHere  []int           // ranks lost in this region
	committed []int           // ranks that committed, ascending (Result)
	unitTimes []time.Duration // unit times seen, for stragglers
	sorted    []time.Duration // scratch for the median
	fatal     error           // a loss the job may not survive, or a bad message
	firstLoss time.Time
	settled   bool // every slave committed or was lost, and no unit is left
	reexecN   int  // units re-executed on the master
	reexecT   time.Duration
	waitedT   time.Duration // the master's loop waiting for the slaves
	curStart  time.Time     // when the master's unit being run began
	curRedo   bool
	running   bool

	acts []Action // queued for Ready
}

// New returns a roster over the job's membership m.
func New(m *Members) *Roster { return &Roster{members: m} }

// Silence sets how the roster learns how long a slave has been silent
// (nothing received from it, heartbeats included); nil, the default, judges
// stragglers by their units' time alone.
func (ro *Roster) Silence(f func(rank int) time.Duration) { ro.silence = f }

// quiet reports whether slave rank has been silent long enough to be a
// straggler, and how long until it would be.
func (ro *Roster) quiet(rank int) (bool, time.Duration) {
	if ro.silence == nil {
		return true, 0
	}
	s := ro.silence(rank)
	return s >= StragglerSilence, StragglerSilence - s
}

// Ready returns the actions queued since the last call, in order; the
// slice is the roster's, valid until the next Step.
func (ro *Roster) Ready() []Action {
	a := ro.acts
	ro.acts = ro.acts[:0]
	return a
}

func (ro *Roster) emit(a Action) { ro.acts = append(ro.acts, a) }

// Step applies one event.
func (ro *Roster) Step(ev Event) {
	switch ev.Kind {
	case Begin:
		ro.begin(ev.Region, ev.At)
	case Recv:
		ro.recv(ev)
	case Closed:
		ro.lose(ev.Rank, ev.Seq, ev.Err, false, ev.At)
	case NextUnit:
		ro.next(ev.At)
	case Tick:
		ro.waitedT += ev.Waited
		ro.checkStragglers(ev.At)
	case End:
		ro.end(ev.At)
	}
}

// Seq is the current region's.
func (ro *Roster) Seq() uint64 { return ro.seq }

// Dynamic reports whether the current region's loop hands out chunks.
func (ro *Roster) Dynamic() bool { return ro.dynamic }

// OwnLeft is the number of the master's own static units not run yet.
func (ro *Roster) OwnLeft() int { return len(ro.mine) }

// Settled reports whether every slave committed or was lost, or the region
// failed: Result may be taken.
func (ro *Roster) Settled() bool { return ro.pending <= 0 || ro.fatal != nil }

// Result is the region's outcome once Settled: the ranks whose delta was
// committed, ascending (the roster's, valid until the next region), or
// the region's error. A loss whose units the master could not re-run (its
// loop had ended) is an error.
func (ro *Roster) Result() ([]int, error) {
	if ro.fatal != nil {
		return nil, ro.fatal
	}
	if len(ro.lostHere) > 0 && (!ro.settled || len(ro.redo) > 0) {
		return nil, fmt.Errorf("lost node %d after the master's share of the region ended: its units cannot be re-run here", ro.lostHere[0])
	}
	ro.committed = ro.committed[:0]
	for _, rank := range ro.slaves {
		if ro.done[rank] {
			ro.committed = append(ro.committed, rank)
		}
	}
	return ro.committed, nil
}

// Stats is the region's account of re-execution, for --stats.
func (ro *Roster) Stats() (lost []int, units int, reexec, waited time.Duration) {
	return ro.lostHere, ro.reexecN, ro.reexecT, ro.waitedT
}

// begin resets the roster for reg: the units of every live node.
func (ro *Roster) begin(reg Region, at time.Time) {
	m := ro.members
	size := 1
	for _, rank := range m.Live {
		size = max(size, rank+1)
	}
	ro.grow(size)
	ro.seq, ro.start, ro.count, ro.chunk = reg.Seq, at, reg.Count, reg.Chunk
	ro.dynamic, ro.guided, ro.nodes = reg.Dynamic, reg.Guided, reg.Nodes
	ro.recover = reg.Rerun && m.MaxLost != 0 && m.MayLose()
	ro.nextLo, ro.fatal, ro.firstLoss, ro.settled = 0, nil, time.Time{}, false
	ro.reexecN, ro.reexecT, ro.waitedT, ro.running = 0, 0, 0, false
	ro.redo, ro.lostHere, ro.committed, ro.unitTimes = ro.redo[:0], ro.lostHere[:0], ro.committed[:0], ro.unitTimes[:0]
	ro.acts = ro.acts[:0]
	clear(ro.done)
	clear(ro.out)
	live := m.Live
	ro.slaves = append(ro.slaves[:0], live[1:]...)
	ro.mine = ro.mine[:0]
	for v, rank := range live {
		var us []Unit
		if rank == 0 {
			us = ro.mine
		} else {
			us = ro.given[rank][:0]
		}
		if !ro.dynamic {
			us = AppendStatic(us, ro.count, ro.chunk, v, len(live))
		}
		if rank == 0 {
			ro.mine = us
		} else {
			ro.given[rank] = us
		}
	}
	ro.pending = len(ro.slaves)
	for _, rank := range ro.slaves {
		ro.began[rank] = at
	}
}

// grow sizes the per-rank tables for ranks below size.
func (ro *Roster) grow(size int) {
	old := len(ro.given)
	if old >= size {
		return
	}
	ro.given = append(ro.given, make([][]Unit, size-old)...)
	ro.began = append(ro.began, make([]time.Time, size-old)...)
	ro.done = append(ro.done, make([]bool, size-old)...)
	ro.out = append(ro.out, make([]bool, size-old)...)
}

// recv serves one message of a slave: a late one of a lost node is
// refused, one of an earlier region ignored, a malformed one fails the
// region, a delta is committed, a chunk request answered.
func (ro *Roster) recv(ev Event) {
	rank := ev.Rank
	if ro.members.IsLost(rank) {
		ro.emit(Action{Kind: Refuse, Rank: rank, MsgKind: ev.MsgKind, MsgSeq: ev.MsgSeq})
		ro.emit(Action{Kind: Drop, Rank: rank})
		return
	}
	if ev.Seq != ro.seq || rank >= len(ro.out) {
		return
	}
	switch {
	case ev.Err != nil:
		if ro.fatal == nil {
			ro.fatal = ev.Err
		}
		ro.pending--
		ro.emit(Action{Kind: Wake})
	case ev.Delta:
		ro.commit(rank, ev.At)
	default:
		ro.emit(Action{Kind: Chunk, Rank: rank, Seq: ro.seq, Unit: ro.take(rank, ev.At)})
	}
}

// take hands rank the next chunk of a dynamic loop: a lost node's first,
// else the next of the iteration space (empty when none is left).
func (ro *Roster) take(rank int, now time.Time) Unit {
	if len(ro.given[rank]) > 0 {
		ro.unitTimes = append(ro.unitTimes, now.Sub(ro.began[rank]))
	}
	ro.began[rank] = now
	u, ok := ro.nextChunk()
	if !ok {
		return Unit{ro.count, ro.count}
	}
	ro.given[rank] = append(ro.given[rank], u)
	return u
}

// nextChunk pops a lost node's unit, else cuts the next chunk.
func (ro *Roster) nextChunk() (Unit, bool) {
	if len(ro.redo) > 0 {
		u := ro.redo[0]
		ro.redo = ro.redo[1:]
		return u, true
	}
	lo := ro.nextLo
	if lo >= ro.count {
		return Unit{}, false
	}
	size := ro.chunk
	if ro.guided {
		size = max(ro.chunk, (ro.count-lo+ro.nodes-1)/ro.nodes)
	}
	ro.nextLo = min(lo+size, ro.count)
	return Unit{lo, ro.nextLo}, true
}

// commit keeps rank's delta, the first and only one it may send.
func (ro *Roster) commit(rank int, now time.Time) {
	if ro.out[rank] || ro.done[rank] {
		return
	}
	if !ro.dynamic {
		ro.unitTimes = append(ro.unitTimes, now.Sub(ro.began[rank]))
	}
	ro.done[rank] = true
	ro.pending--
	ro.emit(Action{Kind: Commit, Rank: rank})
	ro.emit(Action{Kind: Wake})
}

// errAfterCommit is the reason given for a node found lost in a region
// after the master declared it lost while sending it the previous
// region's result.
var errAfterCommit = errors.New("lost while the master sent it the previous region's result")

// lose handles the loss of rank in region seq, seen as err at now: under
// the job's policy its units go back to be re-run, else the loss is the
// region's error.
func (ro *Roster) lose(rank int, seq uint64, err error, straggler bool, now time.Time) {
	if seq != ro.seq || rank >= len(ro.out) {
		// A straggler of an earlier region: its connection ended.
		ro.emit(Action{Kind: Drop, Rank: rank})
		return
	}
	if ro.done[rank] {
		return // committed; the next region finds the loss
	}
	if ro.out[rank] {
		// A straggler's connection ended: nothing more to refuse.
		ro.emit(Action{Kind: Drop, Rank: rank})
		return
	}
	m := ro.members
	// A node lost after it committed the previous region (while it was
	// sent the result) is still in this region's live set: its units are
	// re-run.
	before := m.IsLost(rank)
	if !before && straggler && !m.MayLose() {
		return // no speculation past --max-lost: wait for the peer timeout
	}
	if !before && (!ro.recover || !m.MayLose()) {
		if ro.fatal == nil {
			ro.fatal = err
			if ro.recover && m.MaxLost > 0 {
				ro.fatal = fmt.Errorf("%w (a loss past --max-lost %d: %d lost before)", err, m.MaxLost, len(m.Losses))
			}
		}
		ro.pending--
		ro.emit(Action{Kind: Wake})
		return
	}
	if !before {
		m.declare(rank, ro.seq, now)
		ro.emit(Action{Kind: Declare, Rank: rank, Seq: ro.seq, Straggler: straggler})
	} else {
		err = errAfterCommit
	}
	if ro.firstLoss.IsZero() {
		ro.firstLoss = now
	}
	us := ro.given[rank]
	ro.given[rank] = us[len(us):]
	ro.redo = append(ro.redo, us...)
	ro.lostHere = append(ro.lostHere, rank)
	ro.out[rank] = true
	ro.pending--
	ro.emit(Action{Kind: Lost, Rank: rank, Seq: ro.seq, At: now, Into: now.Sub(ro.start), Err: err, Units: us, Dynamic: ro.dynamic, Straggler: straggler})
	if straggler {
		ro.emit(Action{Kind: Leave, Rank: rank, Seq: ro.seq})
	}
	ro.emit(Action{Kind: Wake})
}

// next queues the master's next step: its own units, then (when losses
// may be survived) lost nodes' units as they appear (Run), until every
// slave committed or was lost (Done); meanwhile it waits (Wait).
func (ro *Roster) next(now time.Time) {
	ro.finishUnit(now)
	if ro.fatal != nil {
		ro.emit(Action{Kind: Done})
		return
	}
	if len(ro.mine) > 0 {
		u := ro.mine[0]
		ro.mine = ro.mine[1:]
		ro.startUnit(u, false, now)
		return
	}
	if ro.dynamic {
		redo := len(ro.redo) > 0
		if u, ok := ro.nextChunk(); ok {
			ro.startUnit(u, redo, now)
			return
		}
	} else if len(ro.redo) > 0 {
		u := ro.redo[0]
		ro.redo = ro.redo[1:]
		ro.startUnit(u, true, now)
		return
	}
	if !ro.recover || ro.pending <= 0 {
		ro.settled = ro.recover
		ro.emit(Action{Kind: Done})
		return
	}
	ro.emit(Action{Kind: Wait, At: now.Add(ro.stragglerWait(now))})
}

func (ro *Roster) startUnit(u Unit, redo bool, now time.Time) {
	ro.curStart, ro.curRedo, ro.running = now, redo, true
	ro.emit(Action{Kind: Run, Unit: u, Redo: redo})
}

// finishUnit accounts for the master's unit that just ended.
func (ro *Roster) finishUnit(now time.Time) {
	if !ro.running {
		return
	}
	ro.running = false
	d := now.Sub(ro.curStart)
	ro.unitTimes = append(ro.unitTimes, d)
	if ro.curRedo {
		ro.reexecN++
		ro.reexecT += d
	}
}

// threshold is how long a unit may run before its node is a straggler.
func (ro *Roster) threshold() time.Duration {
	if len(ro.unitTimes) == 0 {
		return StragglerFloor
	}
	ro.sorted = append(ro.sorted[:0], ro.unitTimes...)
	slices.Sort(ro.sorted)
	return max(StragglerFactor*ro.sorted[len(ro.sorted)/2], StragglerFloor)
}

// stragglerWait is how long to wait before the next straggler check.
func (ro *Roster) stragglerWait(now time.Time) time.Duration {
	th := ro.threshold()
	wait := th
	for _, rank := range ro.slaves {
		if ro.done[rank] || ro.out[rank] {
			continue
		}
		left := th - now.Sub(ro.began[rank])
		if left <= 0 {
			if q, until := ro.quiet(rank); !q {
				left = max(until, 100*time.Millisecond) // past the threshold, still heard from
			}
		}
		wait = min(wait, max(left, time.Millisecond))
	}
	return wait
}

// checkStragglers declares lost the slaves whose current unit ran past
// the threshold while the master had nothing left to run.
func (ro *Roster) checkStragglers(now time.Time) {
	th := ro.threshold()
	for _, rank := range ro.slaves {
		if ro.done[rank] || ro.out[rank] || now.Sub(ro.began[rank]) < th {
			continue
		}
		if q, _ := ro.quiet(rank); !q {
			continue // busy, not stopped: its unit is larger than the others
		}
		why := ""
		if ro.silence != nil {
			why = fmt.Sprintf(", silent for %v", ro.silence(rank).Round(time.Millisecond))
		}
		ro.lose(rank, ro.seq, fmt.Errorf("a straggler: its unit ran %v, past max(%d × the median unit time, %v)%s",
			now.Sub(ro.began[rank]).Round(time.Millisecond), StragglerFactor, StragglerFloor, why), true, now)
	}
}

// end reports how the region recovered from its losses, if any, and adds
// the re-executed work to the job's account.
func (ro *Roster) end(now time.Time) {
	if len(ro.lostHere) == 0 {
		return
	}
	ro.members.Units += ro.reexecN
	ro.members.Reexec += ro.reexecT
	ro.emit(Action{Kind: Recovered, Seq: ro.seq, Ranks: ro.lostHere, Took: now.Sub(ro.firstLoss),
		Count: ro.reexecN, Reexec: ro.reexecT})
}

// AppendStatic appends the units of virtual rank v of size nodes: its
// block (chunk ≤ 0) or its block-cyclic chunks.
func AppendStatic(us []Unit, count, chunk, v, size int) []Unit {
	if chunk <= 0 {
		if lo, hi := Block(count, v, size); lo < hi {
			us = append(us, Unit{lo, hi})
		}
		return us
	}
	for lo := v * chunk; lo < count; lo += size * chunk {
		us = append(us, Unit{lo, min(lo+chunk, count)})
	}
	return us
}

// Block returns the static block [lo, hi) of virtual rank v of size nodes
// in count iterations: the first count%size ranks get one more.
func Block(count, v, size int) (lo, hi int) {
	if count <= 0 {
		return 0, 0
	}
	q, rem := count/size, count%size
	lo = v*q + min(v, rem)
	hi = lo + q
	if v < rem {
		hi++
	}
	return lo, hi
}

// Loss reports whether the action is part of carrying out a loss (or a
// lost node's late message): the driver counts the receivers still doing
// so, and the region's end waits for them.
func (a Action) Loss() bool {
	switch a.Kind {
	case Drop, Refuse, Declare, Lost, Leave:
		return true
	}
	return false
}

// Find returns the index of the first action of kind k in acts, or -1.
func Find(acts []Action, k ActionKind) int {
	for i := range acts {
		if acts[i].Kind == k {
			return i
		}
	}
	return -1
}

// Ranks returns the ranks 0 to size-1: the nodes of a job of size nodes
// at its start.
func Ranks(size int) []int {
	live := make([]int, size)
	for i := range live {
		live[i] = i
	}
	return live
}
