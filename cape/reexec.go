package cape

// Re-execution: the master's roster of a region's units (PY-PITS, seed 003:
// running a unit from the region's entry state is idempotent, committing it
// is not). The master knows which node runs which unit: static blocks,
// block-cyclic chunks and static sections by the live set, dynamic and
// guided chunks as it hands them out. One receiver goroutine per slave
// takes the slave's chunk requests and its delta. A slave whose connection
// fails before its delta arrived is lost: its delta, reduction partials
// and lastprivate value are discarded whole (nothing of them was received),
// and its units are re-executed: by the master, which after its own units
// waits in its iterator for the slaves and runs the units of any lost one
// inside the same armed region (its writes then land in its own delta;
// under Bernstein's conditions units do not read each other's writes), and
// for dynamic and guided loops by any survivor asking for a chunk. A delta
// is committed once: the first to arrive; a node declared lost cannot
// commit (its late messages are refused and it is told to leave).
//
// Stragglers: when the master has nothing left to run and a slave's current
// unit has run for max(stragglerFactor × the median unit time seen in the
// region, stragglerFloor), the slave is declared lost and its units are run
// on the master. Declaring it lost, rather than racing it, keeps the commit
// single: a reduction partial of the straggler's units committed twice
// would count them twice.

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cape-go/cape/transport"
)

// unit is a share of a region's iterations, [lo, hi); section s is [s, s+1).
type unit struct{ lo, hi int }

// The straggler threshold is max(stragglerFactor × median unit time,
// stragglerFloor). Units of one region are of similar size (static blocks
// differ by one iteration; chunks by the schedule's rule), so a unit
// running four times the median is not load imbalance but a node that is
// stopped, swapping or starved; the floor keeps short regions, where
// timing noise (a loaded machine, a GC pause) exceeds the units' times,
// from declaring healthy nodes lost, and stays well below the peer timeout
// (10s by default), the only other way a stopped node is found.
const (
	stragglerFactor = 4
	stragglerFloor  = 2 * time.Second
)

// roster is the master's record of one region's units. The node keeps one
// and resets it for each region (so that a region allocates nothing for
// it), with one receiver goroutine per slave for the job's life, started
// for each region on its start channel. Its methods are safe for
// concurrent use: the region's goroutine and the receivers share it. A
// receiver still serving an earlier region (a straggler's, refusing its
// late messages) carries that region's seq and touches nothing of a later
// one.
type roster struct {
	r       *Region
	n       *node
	count   int
	chunk   int
	dynamic bool
	guided  bool
	nodes   int  // nodes sharing the region (guided chunk sizes)
	recover bool // losses may be survived: the master re-runs lost units

	start []chan uint64 // per slave rank: a region's seq, for its receiver

	mu sync.Mutex
	// mu protects the following fields. node.lossMu is taken after it.
	seq       uint64              // the region's
	slaves    []int               // the region's live slaves
	mine      []unit              // the master's own static units not run yet
	nextLo    int                 // dynamic: first iteration not handed out
	given     [][]unit            // by rank: units assigned or handed out
	began     []time.Time         // by rank: when its current unit began
	msgs      []transport.Message // by rank: its delta, committed (Kind ≠ 0)
	redo      []unit              // units of lost slaves not re-run yet
	pending   int                 // slaves neither committed nor lost
	lostHere  []int               // ranks lost in this region
	out       []bool              // by rank: lost in this region
	committed []int               // ranks whose delta was committed, ascending (collect)
	unitTimes []time.Duration     // unit times seen, for stragglers
	sorted    []time.Duration     // scratch for the median
	fatal     error               // a loss the job may not survive, or a bad message
	firstLoss time.Time
	settled   bool // every slave committed or was lost, and no unit is left
	reexecN   int  // units re-executed on the master
	reexecT   time.Duration
	waitedT   time.Duration // the master's loop waiting for the slaves to commit (--stats)
	cur       unit          // the master's unit being run
	curStart  time.Time
	curRedo   bool
	running   bool

	wake *waker // a slave committed, was lost, or asked
}

// newRoster resets the node's roster for r: the units of every live node,
// and starts the receivers of the live slaves. Without rerun (the region's
// units are not known: its loop did not go through First or Chunks) a loss
// is an error.
func (r *Region) newRoster(count int, sched Schedule, chunk int, rerun bool) *roster {
	n := r.n
	n.lossMu.Lock()
	rec := rerun && n.mem.maxLost != 0 && n.mayLose()
	n.lossMu.Unlock()
	ro := n.rost
	if ro == nil {
		ro = &roster{n: n, wake: newWaker()}
		n.rost = ro
	}
	n.includeJoined()
	ro.mu.Lock()
	defer ro.mu.Unlock()
	ro.grow(n.size)
	ro.r, ro.seq, ro.count, ro.chunk = r, r.seq, count, chunk
	ro.dynamic, ro.guided, ro.nodes, ro.recover = sched != Static, sched == Guided, r.size, rec
	ro.nextLo, ro.fatal, ro.firstLoss, ro.settled = 0, nil, time.Time{}, false
	ro.reexecN, ro.reexecT, ro.waitedT, ro.running = 0, 0, 0, false
	ro.redo, ro.lostHere, ro.committed, ro.unitTimes = ro.redo[:0], ro.lostHere[:0], ro.committed[:0], ro.unitTimes[:0]
	clear(ro.msgs)
	clear(ro.out)
	ro.wake.clear() // a signal left by the previous region
	live := n.mem.live
	ro.slaves = append(ro.slaves[:0], live[1:]...)
	ro.mine = ro.mine[:0]
	for v, rank := range live {
		var us []unit
		if rank == 0 {
			us = ro.mine
		} else {
			us = ro.given[rank][:0]
		}
		if !ro.dynamic {
			us = appendStaticUnits(us, count, chunk, v, len(live))
		}
		if rank == 0 {
			ro.mine = us
		} else {
			ro.given[rank] = us
		}
	}
	ro.pending = len(ro.slaves)
	for _, rank := range ro.slaves {
		ro.began[rank] = r.t0
		ro.start[rank] <- r.seq
	}
	return ro
}

// grow sizes the roster's per-rank tables for a job of size nodes (it
// grows when nodes join) and starts the receivers of the new ranks. ro.mu
// must be held.
func (ro *roster) grow(size int) {
	old := len(ro.start)
	if old >= size {
		return
	}
	ro.given = append(ro.given, make([][]unit, size-old)...)
	ro.began = append(ro.began, make([]time.Time, size-old)...)
	ro.msgs = append(ro.msgs, make([]transport.Message, size-old)...)
	ro.out = append(ro.out, make([]bool, size-old)...)
	ro.start = append(ro.start, make([]chan uint64, size-old)...)
	for rank := max(old, 1); rank < size; rank++ {
		ro.start[rank] = make(chan uint64, 1)
		go ro.serve(rank, ro.start[rank])
	}
}

// serve is the receiver of rank's messages, for every region it is
// started for on start (see receive). It waits for the slave's next
// message before the region it belongs to has started here (a slave's
// delta may arrive first), so that in a loop of regions the message's
// arrival wakes this goroutine directly, not the region goroutine's start
// signal after it.
func (ro *roster) serve(rank int, start <-chan uint64) {
	for {
		msg, err := ro.n.master.Recv(rank)
		seq, ok := <-start
		if !ok {
			return
		}
		ro.receive(rank, seq, msg, err)
	}
}

// appendStaticUnits appends the units of virtual rank v of size nodes: its
// block (chunk ≤ 0) or its block-cyclic chunks.
func appendStaticUnits(us []unit, count, chunk, v, size int) []unit {
	if chunk <= 0 {
		if lo, hi := block(count, v, size); lo < hi {
			us = append(us, unit{lo, hi})
		}
		return us
	}
	for lo := v * chunk; lo < count; lo += size * chunk {
		us = append(us, unit{lo, min(lo+chunk, count)})
	}
	return us
}

// staticUnits returns the units of virtual rank v of size nodes: its block
// (chunk ≤ 0) or its block-cyclic chunks.
func staticUnits(count, chunk, v, size int) []unit {
	return appendStaticUnits(nil, count, chunk, v, size)
}

func (ro *roster) signal() { ro.wake.signal() }

// receive serves one slave for the region: its chunk requests, then its
// delta. msg and err are what the first Recv of the region returned. After
// the slave is declared a straggler it keeps receiving, to refuse what the
// slave sends late.
func (ro *roster) receive(rank int, seq uint64, msg transport.Message, err error) {
	n := ro.n
	for ; ; msg, err = n.master.Recv(rank) {
		if err != nil {
			ro.lose(rank, seq, err, false)
			return
		}
		if ro.refused(rank, msg) {
			return
		}
		dynamic, current := ro.current(seq)
		if !current {
			return
		}
		if err := fromSlave(msg, rank, seq, dynamic); err != nil {
			ro.setFatal(seq, err)
			return
		}
		if msg.Kind == kindDelta {
			ro.commit(rank, seq, msg)
			return
		}
		lo, hi := ro.take(rank, seq)
		if err := n.master.Send(rank, transport.Message{Kind: kindChunk, Seq: seq, Payload: chunkPayload(lo, hi)}); err != nil {
			ro.lose(rank, seq, err, false)
			return
		}
	}
}

// current reports whether region seq is the roster's, and if so whether
// its loop is dynamic.
func (ro *roster) current(seq uint64) (dynamic, ok bool) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	return ro.dynamic, ro.seq == seq
}

// refused reports whether msg came from a node declared lost: it is
// refused (reported, never used) and the connection is dropped.
func (ro *roster) refused(rank int, msg transport.Message) bool {
	n := ro.n
	n.lossMu.Lock()
	lost := n.isLost(rank)
	n.lossMu.Unlock()
	if !lost {
		return false
	}
	fmt.Fprintf(os.Stderr, "cape: master: refused node %d's late message (kind %d, region #%d): it was declared lost\n",
		rank, msg.Kind, msg.Seq)
	_ = n.master.Drop(rank)
	return true
}

// take hands rank the next chunk of a dynamic loop: a lost node's first,
// else the next of the iteration space (lo = hi when none is left).
func (ro *roster) take(rank int, seq uint64) (lo, hi int) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if ro.seq != seq {
		return ro.count, ro.count
	}
	now := time.Now()
	if len(ro.given[rank]) > 0 {
		ro.unitTimes = append(ro.unitTimes, now.Sub(ro.began[rank]))
	}
	ro.began[rank] = now
	u, ok := ro.nextChunk()
	if !ok {
		return ro.count, ro.count
	}
	ro.given[rank] = append(ro.given[rank], u)
	return u.lo, u.hi
}

// nextChunk pops a lost node's unit, else cuts the next chunk. ro.mu must
// be held.
func (ro *roster) nextChunk() (unit, bool) {
	if len(ro.redo) > 0 {
		u := ro.redo[0]
		ro.redo = ro.redo[1:]
		return u, true
	}
	lo := ro.nextLo
	if lo >= ro.count {
		return unit{}, false
	}
	size := ro.chunk
	if ro.guided {
		size = max(ro.chunk, (ro.count-lo+ro.nodes-1)/ro.nodes)
	}
	ro.nextLo = min(lo+size, ro.count)
	return unit{lo, ro.nextLo}, true
}

// commit keeps rank's delta, the first and only one it may send.
func (ro *roster) commit(rank int, seq uint64, msg transport.Message) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if ro.seq != seq || ro.out[rank] {
		return
	}
	if !ro.dynamic {
		ro.unitTimes = append(ro.unitTimes, time.Since(ro.began[rank]))
	}
	ro.msgs[rank] = msg
	ro.pending--
	ro.signal()
}

func (ro *roster) setFatal(seq uint64, err error) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if ro.seq != seq {
		return
	}
	if ro.fatal == nil {
		ro.fatal = err
	}
	ro.pending--
	ro.signal()
}

// lose handles the loss of rank, seen as err: under the job's policy its
// units go back to be re-run, else the loss is the region's error.
func (ro *roster) lose(rank int, seq uint64, err error, straggler bool) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	n := ro.n
	if ro.seq != seq {
		// A straggler of an earlier region: its connection ended.
		_ = n.master.Drop(rank)
		return
	}
	if ro.msgs[rank].Kind != 0 {
		return // committed; the next region finds the loss
	}
	if ro.out[rank] {
		// A straggler's connection ended: nothing more to refuse.
		_ = n.master.Drop(rank)
		return
	}
	n.lossMu.Lock()
	// A node lost after it committed the previous region (while it was sent
	// the result) is still in this region's live set: its units are re-run.
	before := n.isLost(rank)
	if !before && straggler && !n.mayLose() {
		n.lossMu.Unlock()
		return // no speculation past --max-lost: wait for the peer timeout
	}
	if !before && (!ro.recover || !n.mayLose()) {
		n.lossMu.Unlock()
		if ro.fatal == nil {
			ro.fatal = err
		}
		ro.pending--
		ro.signal()
		return
	}
	if !before {
		n.recordLoss(rank, ro.r.seq, straggler)
	} else {
		err = errors.New("lost while the master sent it the previous region's result")
	}
	n.lossMu.Unlock()
	now := time.Now()
	if ro.firstLoss.IsZero() {
		ro.firstLoss = now
	}
	us := ro.given[rank]
	ro.given[rank] = us[len(us):]
	ro.redo = append(ro.redo, us...)
	ro.lostHere = append(ro.lostHere, rank)
	ro.out[rank] = true
	ro.pending--
	where := "the master re-runs them"
	if ro.dynamic {
		where = "they go back to the pool, for the first survivor to ask (the master included)"
	}
	fmt.Fprintf(os.Stderr, "cape: master: lost node %d at %s, %v into %s: %v; its %s: %s\n",
		rank, now.Format("15:04:05.000"), short(now.Sub(ro.r.t0)), ro.r.label(), err, describeUnits(us), where)
	if straggler {
		leave := transport.Message{Kind: kindLeave, Seq: ro.r.seq,
			Payload: []byte(fmt.Sprintf("node %d straggled in %s; its units ran elsewhere", rank, ro.r.label()))}
		go func() { _ = n.master.Send(rank, leave) }()
	}
	ro.signal()
}

// describeUnits lists units briefly.
func describeUnits(us []unit) string {
	if len(us) == 0 {
		return "units: none (it had not asked for a chunk)"
	}
	var parts []string
	iters := 0
	for i, u := range us {
		iters += u.hi - u.lo
		if i < 4 {
			parts = append(parts, fmt.Sprintf("[%d, %d)", u.lo, u.hi))
		}
	}
	if len(us) > 4 {
		parts = append(parts, fmt.Sprintf("and %d more", len(us)-4))
	}
	return fmt.Sprintf("%s (%d iterations: %s)", plural(len(us), "unit"), iters, strings.Join(parts, " "))
}

// next returns the master's next unit: its own, then (when losses may be
// survived) lost nodes' units as they appear, until every slave committed
// or was lost. It waits for the slaves only when it may re-run their units.
func (ro *roster) next() (unit, bool) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	ro.finishUnit()
	for {
		if ro.fatal != nil {
			return unit{}, false
		}
		if len(ro.mine) > 0 {
			u := ro.mine[0]
			ro.mine = ro.mine[1:]
			return ro.startUnit(u, false), true
		}
		if ro.dynamic {
			redo := len(ro.redo) > 0
			if u, ok := ro.nextChunk(); ok {
				return ro.startUnit(u, redo), true
			}
		} else if len(ro.redo) > 0 {
			u := ro.redo[0]
			ro.redo = ro.redo[1:]
			return ro.startUnit(u, true), true
		}
		if !ro.recover || ro.pending <= 0 {
			ro.settled = ro.recover
			return unit{}, false
		}
		t := time.Now()
		due := t.Add(ro.stragglerWait())
		ro.mu.Unlock()
		ro.wake.wait(due)
		ro.mu.Lock()
		ro.waitedT += time.Since(t)
		ro.checkStragglers()
	}
}

func (ro *roster) startUnit(u unit, redo bool) unit {
	ro.cur, ro.curStart, ro.curRedo, ro.running = u, time.Now(), redo, true
	return u
}

// finishUnit accounts for the master's unit that just ended. ro.mu must
// be held.
func (ro *roster) finishUnit() {
	if !ro.running {
		return
	}
	ro.running = false
	d := time.Since(ro.curStart)
	ro.unitTimes = append(ro.unitTimes, d)
	if ro.curRedo {
		ro.reexecN++
		ro.reexecT += d
	}
}

// threshold is how long a unit may run before its node is a straggler.
// ro.mu must be held.
func (ro *roster) threshold() time.Duration {
	if len(ro.unitTimes) == 0 {
		return stragglerFloor
	}
	ro.sorted = append(ro.sorted[:0], ro.unitTimes...)
	slices.Sort(ro.sorted)
	return max(stragglerFactor*ro.sorted[len(ro.sorted)/2], stragglerFloor)
}

// stragglerWait is how long to wait before the next straggler check.
// ro.mu must be held.
func (ro *roster) stragglerWait() time.Duration {
	th := ro.threshold()
	wait := th
	for _, rank := range ro.slaves {
		if ro.msgs[rank].Kind != 0 || ro.out[rank] {
			continue
		}
		wait = min(wait, max(th-time.Since(ro.began[rank]), time.Millisecond))
	}
	return wait
}

// checkStragglers declares lost the slaves whose current unit ran past
// the threshold while the master had nothing left to run. ro.mu must be
// held; it is released while a straggler is declared lost.
func (ro *roster) checkStragglers() {
	th := ro.threshold()
	var late []int
	for _, rank := range ro.slaves {
		if ro.msgs[rank].Kind == 0 && !ro.out[rank] && time.Since(ro.began[rank]) >= th {
			late = append(late, rank)
		}
	}
	seq := ro.seq
	for _, rank := range late {
		ro.mu.Unlock()
		ro.lose(rank, seq, fmt.Errorf("a straggler: its unit ran %v, past max(%d × the median unit time, %v)",
			time.Since(ro.began[rank]).Round(time.Millisecond), stragglerFactor, stragglerFloor), true)
		ro.mu.Lock()
	}
}

// collect waits for every slave to commit or be lost and returns the
// committed deltas, indexed by rank (Kind 0 for lost nodes), and the ranks
// that committed, ascending; both are the roster's, valid until the next
// region. A loss whose units the master could not re-run (its iterator had
// ended) is an error.
func (ro *roster) collect() ([]transport.Message, []int, error) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	for ro.pending > 0 && ro.fatal == nil {
		ro.mu.Unlock()
		ro.wake.wait(time.Time{})
		ro.mu.Lock()
	}
	if ro.fatal != nil {
		return nil, nil, ro.fatal
	}
	if len(ro.lostHere) > 0 && (!ro.settled || len(ro.redo) > 0) {
		return nil, nil, fmt.Errorf("lost node %d after the master's share of the region ended: its units cannot be re-run here", ro.lostHere[0])
	}
	ro.committed = ro.committed[:0]
	for _, rank := range ro.slaves {
		if ro.msgs[rank].Kind != 0 {
			ro.committed = append(ro.committed, rank)
		}
	}
	return ro.msgs, ro.committed, nil
}

// report prints how the region recovered from its losses, and adds the
// re-executed work to the job's account.
func (ro *roster) report() {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if len(ro.lostHere) == 0 {
		return
	}
	n := ro.n
	n.lossMu.Lock()
	n.mem.units += ro.reexecN
	n.mem.reexec += ro.reexecT
	n.lossMu.Unlock()
	fmt.Fprintf(os.Stderr, "cape: master: %s recovered from the loss of node %s in %v: the master re-ran %s in %v; next regions are shared by nodes %v\n",
		ro.r.label(), joinInts(ro.lostHere), short(time.Since(ro.firstLoss)),
		plural(ro.reexecN, "unit"), short(ro.reexecT), n.mem.live)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// plural is "1 unit", "2 units".
func plural(k int, what string) string {
	if k == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", k, what)
}

// reexecStats is the master's --stats note on the region's loop: the
// units it re-executed, if any, and how much of its compute was waiting
// for the slaves to commit (with re-execution on, its loop ends then).
func (r *Region) reexecStats() string {
	if r.ro == nil {
		return ""
	}
	ro := r.ro
	ro.mu.Lock()
	defer ro.mu.Unlock()
	var waited string
	if ro.waitedT > 0 {
		// With re-execution on, the master's loop ends when every slave
		// has committed: its compute includes that wait.
		waited = fmt.Sprintf("; of the compute, %v waiting for the slaves' deltas", ro.waitedT.Round(time.Microsecond))
	}
	if len(ro.lostHere) == 0 {
		return waited
	}
	return fmt.Sprintf(", lost node %s: re-executed %s on the master in %v", joinInts(ro.lostHere),
		plural(ro.reexecN, "unit"), ro.reexecT.Round(time.Microsecond)) + waited
}

// short rounds a duration for a report: to the microsecond below a
// millisecond, else to the millisecond.
func short(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
