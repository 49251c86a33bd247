package cape

// Re-execution: the master's driver of the roster (package roster decides
// who runs which unit, commits and losses). This file owns what the roster
// may not: one receiver goroutine per slave that takes its chunk requests
// and its delta, the sockets, the clock, the waits and the notices.

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/wake"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// rosterDriver is the master's driver of one region's roster. The node keeps
// one and resets it for each region (so that a region allocates nothing
// for it), with one receiver goroutine per slave for the job's life,
// started for each region on its start channel. Its methods are safe for
// concurrent use: the region's goroutine and the receivers share it. A
// receiver still serving an earlier region (a straggler's, refusing its
// late messages) carries that region's seq and touches nothing of a later
// one.
//
// Under its locks the driver only feeds the roster and copies out the
// actions it queued (decide); it carries them out — sockets, notices, the
// launcher, goroutines — with no lock held (perform).
type rosterDriver struct {
	n *node

	start []chan uint64 // per slave rank: a region's seq, for its receiver
	// finishing is closed when the master's program has ended (Finalize):
	// no region starts after, and a receiver holding a slave's message
	// for one reports it (otherPath).
	finishing chan struct{}
	// runs, per slave rank: the runs messages its receiver took (answers
	// to a collect, distributed homes), or the end of its connection.
	runs []chan runsMsg

	mu sync.Mutex
	// mu protects the following fields. node.lossMu is taken after it.
	r      *Region
	sm     *roster.Roster      // the decisions; it reads and updates n.members
	msgs   []transport.Message // by rank: its delta, committed (Kind ≠ 0)
	acting int                 // receivers carrying out a loss's actions: collect waits for them

	own  []roster.Action // the region goroutine's copy of the roster's actions
	wake *wake.Waker     // a slave committed, was lost, or asked
}

// newRoster resets the node's roster for r: the units of every live node,
// and starts the receivers of the live slaves. Without rerun (the region's
// units are not known: its loop did not go through First or Chunks) a loss
// is an error.
func (r *Region) newRoster(count int, sched Schedule, chunk int, rerun bool) *rosterDriver {
	n := r.n
	ro := n.rost
	if ro == nil {
		ro = &rosterDriver{n: n, wake: wake.New(), sm: roster.New(&n.members), finishing: make(chan struct{})}
		if n.master != nil {
			ro.sm.Silence(n.master.Silent)
		}
		n.rost = ro
	}
	n.includeJoined()
	ro.mu.Lock()
	old := ro.grow(n.size)
	ro.r = r
	clear(ro.msgs)
	ro.wake.Clear() // a signal left by the previous region
	n.lossMu.Lock()
	ro.sm.Step(roster.Event{Kind: roster.Begin, At: r.t0, Region: roster.Region{Seq: r.seq, Count: count, Chunk: chunk,
		Dynamic: sched != Static, Guided: sched == Guided, Nodes: r.size, Rerun: rerun}})
	n.lossMu.Unlock()
	ro.sm.Ready()
	ro.mu.Unlock()
	for rank := max(old, 1); rank < len(ro.start); rank++ {
		go ro.serve(rank, ro.start[rank])
	}
	for _, rank := range n.members.Live[1:] {
		ro.start[rank] <- r.seq
	}
	return ro
}

// grow sizes the roster's per-rank tables for a job of size nodes (it
// grows when nodes join) and returns the old size: the receivers of the
// ranks from there on are to be started. ro.mu must be held.
func (ro *rosterDriver) grow(size int) (old int) {
	old = len(ro.start)
	if old >= size {
		return old
	}
	ro.msgs = append(ro.msgs, make([]transport.Message, size-old)...)
	ro.start = append(ro.start, make([]chan uint64, size-old)...)
	ro.runs = append(ro.runs, make([]chan runsMsg, size-old)...)
	for rank := max(old, 1); rank < size; rank++ {
		ro.start[rank] = make(chan uint64, 1)
		ro.runs[rank] = make(chan runsMsg, 1)
	}
	return old
}

// serve is the receiver of rank's messages, for every region it is
// started for on start: the slave's chunk requests, then its delta. It
// waits for the slave's next message before the region it belongs to has
// started here (a slave's delta may arrive first), so that in a loop of
// regions the message's arrival wakes this goroutine directly, not the
// region goroutine's start signal after it. After the slave is declared a
// straggler it keeps receiving, to refuse what the slave sends late.
func (ro *rosterDriver) serve(rank int, start <-chan uint64) {
	var acts []roster.Action // this receiver's copy of the roster's actions
	for {
		msg, err := ro.recvSkippingRuns(rank)
		var seq uint64
		ok := false
		select {
		case seq, ok = <-start:
		case <-ro.finishing:
			if err == nil {
				// The master's program ended, and no region will start:
				// the slave's program reached one the master's did not.
				select { // awaitFinished takes it, unless it stopped at another slave's
				case ro.runs[rank] <- runsMsg{msg, &otherPath{rank: rank, seq: msg.Seq}}:
				default:
				}
			}
			return
		}
		if !ok {
			return
		}
		for err == nil {
			acts = ro.step(roster.Event{Kind: roster.Recv, Rank: rank, Seq: seq, MsgKind: msg.Kind, MsgSeq: msg.Seq,
				Delta: msg.Kind == ro.n.commitKind(), At: time.Now()}, &msg, acts)
			i := roster.Find(acts, roster.Chunk)
			if i < 0 {
				break
			}
			// The chunk is sent with no lock held: the send may block.
			c := acts[i]
			if err = ro.n.master.Send(rank, transport.Message{Kind: wire.Chunk, Seq: c.Seq, Payload: wire.ChunkPayload(c.Unit.Lo, c.Unit.Hi)}); err == nil {
				msg, err = ro.n.master.Recv(rank)
			}
		}
		if err != nil {
			var ended *slaveEnded
			if errors.As(err, &ended) {
				ended.region = seq
			}
			acts = ro.step(roster.Event{Kind: roster.Closed, Rank: rank, Seq: seq, Err: err, At: time.Now()}, nil, acts)
		}
	}
}

// slaveEnded is a slave's program ending while the master's runs regions:
// inside region last (os.Exit, log.Fatal or a panic in one of its
// iterations), when last is the region the master runs, or before it (its
// sequential code took another path).
type slaveEnded struct {
	rank         int
	last, region uint64 // the last region the slave began; the region the master runs
}

func (e *slaveEnded) Error() string {
	if e.last == e.region {
		return fmt.Sprintf("node %d's program ended inside this region (os.Exit, log.Fatal or a panic in one of its iterations): the master runs its units, where the program ends as under go run", e.rank)
	}
	return fmt.Sprintf("node %d's program ended before this region: every node runs the program, and its sequential code must take the same path on each (a loop bounded by the time, random numbers of a process's own or a map's order do not)", e.rank)
}

// runsMsg is a runs message a receiver took, or why its connection ended.
type runsMsg struct {
	msg transport.Message
	err error
}

// recvSkippingRuns is the receiver's next message from rank for the
// roster: a runs message (the answer to a collect, which the region's
// goroutine awaits) goes to awaitRuns instead, as does the end of the
// connection, should the region's goroutine be waiting for one.
func (ro *rosterDriver) recvSkippingRuns(rank int) (transport.Message, error) {
	for {
		msg, err := ro.n.master.Recv(rank)
		if err == nil && msg.Kind != wire.Runs && msg.Kind != wire.Finished {
			return msg, nil
		}
		select {
		case ro.runs[rank] <- runsMsg{msg, err}:
		default:
			if err == nil {
				// A second answer nobody asked for: the roster refuses it.
				return msg, nil
			}
		}
		if err != nil {
			return msg, err
		}
		if msg.Kind == wire.Finished {
			// The slave's program ended: it runs no region after, and
			// one the master begins is the master's alone (the master
			// re-runs the slave's units, as after a loss).
			return msg, &slaveEnded{rank: rank, last: msg.Seq}
		}
	}
}

// awaitFinished waits until slave rank says its program ended, or its
// connection ends (distributed homes: its pages are served until then).
func (ro *rosterDriver) awaitFinished(rank int) error {
	for {
		m := <-ro.runs[rank]
		var op *otherPath
		if errors.As(m.err, &op) {
			return op
		}
		if m.err != nil || m.msg.Kind == wire.Finished {
			return nil
		}
	}
}

// otherPath is a slave's message for a region the master's program never
// began: the nodes' programs took different paths.
type otherPath struct {
	rank int
	seq  uint64
}

func (e *otherPath) Error() string {
	return fmt.Sprintf("node %d reached region #%d, which the master's program never began: every node runs the program, and its sequential code must take the same path on each (a loop bounded by the time, random numbers of a process's own or a map's order do not); the job's output may be short of that region's work", e.rank, e.seq)
}

// awaitRuns returns the runs message rank sent in answer to a collect.
func (ro *rosterDriver) awaitRuns(rank int) (transport.Message, error) {
	m := <-ro.runs[rank]
	if m.err != nil {
		return m.msg, fmt.Errorf("node %d, asked for its runs: %w", rank, m.err)
	}
	return m.msg, nil
}

// step is a receiver's turn of the roster: it decides ev (msg is the
// message ev reports), carries the actions out, and returns them (in acts,
// the receiver's buffer), a chunk to send the slave included.
func (ro *rosterDriver) step(ev roster.Event, msg *transport.Message, acts []roster.Action) []roster.Action {
	acts, r, busy := ro.decide(ev, msg, acts, true)
	ro.perform(acts, r, !busy)
	if busy {
		ro.mu.Lock()
		ro.acting--
		ro.mu.Unlock()
		ro.wake.Signal()
	}
	return acts
}

// decide feeds the roster ev under the locks and returns the actions it
// queued, appended to acts[:0], with the region they are about; msg is the
// message ev reports (Recv), validated here against the region and kept
// when the roster commits it. For a receiver (count), busy reports that
// the actions include a loss's, counted in ro.acting until it carried them
// out, so that collect does not return before.
func (ro *rosterDriver) decide(ev roster.Event, msg *transport.Message, acts []roster.Action, count bool) (_ []roster.Action, _ *Region, busy bool) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if msg != nil && ev.Seq == ro.sm.Seq() {
		ev.Err = wire.FromSlave(*msg, ev.Rank, ev.Seq, ro.sm.Dynamic(), ro.n.commitKind())
	}
	n := ro.n
	n.lossMu.Lock()
	ro.sm.Step(ev)
	n.lossMu.Unlock()
	acts = append(acts[:0], ro.sm.Ready()...)
	for _, a := range acts {
		if a.Kind == roster.Commit {
			ro.msgs[a.Rank] = *msg
		}
		busy = busy || (count && a.Loss())
	}
	if busy {
		ro.acting++
	}
	return acts, ro.r, busy
}

// perform carries out the roster's actions, but the chunks to send
// (serve) and the master's own units (next), with no lock held; r is the
// region they are about. With signal, a Wake action signals the waiter.
func (ro *rosterDriver) perform(acts []roster.Action, r *Region, signal bool) {
	n := ro.n
	for _, a := range acts {
		switch a.Kind {
		case roster.Wake:
			if signal {
				ro.wake.Signal()
			}
		case roster.Drop:
			_ = n.master.Drop(a.Rank)
		case roster.Refuse:
			notice("cape: master: %s\n", a.RefuseText())
		case roster.Declare:
			n.declareLost(a.Rank, a.Seq, a.Straggler)
		case roster.Lost:
			notice("cape: master: %s\n", a.LostText(r.label()))
		case roster.Leave:
			leave := transport.Message{Kind: wire.Leave, Seq: a.Seq, Payload: []byte(a.LeaveText(r.label()))}
			rank := a.Rank
			go func() { _ = n.master.Send(rank, leave) }()
		case roster.Recovered:
			notice("cape: master: %s\n", a.RecoveredText(r.label(), n.members.Live))
		}
	}
}

// next returns the master's next unit: its own, then (when losses may be
// survived) lost nodes' units as they appear, until every slave committed
// or was lost. It waits for the slaves only when it may re-run their units.
func (ro *rosterDriver) next() (roster.Unit, bool) {
	ev := roster.Event{Kind: roster.NextUnit, At: time.Now()}
	for {
		i := -1
		for j, a := range ro.turn(ev) {
			switch a.Kind {
			case roster.Run:
				return a.Unit, true
			case roster.Done:
				return roster.Unit{}, false
			case roster.Wait:
				i = j
			}
		}
		if i < 0 {
			continue
		}
		t := time.Now()
		ro.wake.Wait(ro.own[i].At)
		now := time.Now()
		ro.turn(roster.Event{Kind: roster.Tick, At: now, Waited: now.Sub(t)})
		ev = roster.Event{Kind: roster.NextUnit, At: now}
	}
}

// turn is the region goroutine's turn of the roster: it decides ev and
// carries out the actions, which it returns (valid until its next turn).
func (ro *rosterDriver) turn(ev roster.Event) []roster.Action {
	var r *Region
	ro.own, r, _ = ro.decide(ev, nil, ro.own, false)
	ro.perform(ro.own, r, true)
	return ro.own
}

// ownLeft is the number of the master's own static units not run yet.
func (ro *rosterDriver) ownLeft() int {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	return ro.sm.OwnLeft()
}

// collect waits for every slave to commit or be lost (and for the
// receivers to have carried out their losses) and returns the committed
// deltas, indexed by rank (Kind 0 for lost nodes), and the ranks that
// committed, ascending; both are the roster's, valid until the next
// region. A loss whose units the master could not re-run (its iterator had
// ended) is an error.
func (ro *rosterDriver) collect() ([]transport.Message, []int, error) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	for !ro.sm.Settled() || ro.acting > 0 {
		ro.mu.Unlock()
		ro.wake.Wait(time.Time{})
		ro.mu.Lock()
	}
	committed, err := ro.sm.Result()
	if err != nil {
		return nil, nil, err
	}
	return ro.msgs, committed, nil
}

// report prints how the region recovered from its losses, and adds the
// re-executed work to the job's account.
func (ro *rosterDriver) report() { ro.turn(roster.Event{Kind: roster.End, At: time.Now()}) }

// reexecStats is the master's --stats note on the region's loop (see
// roster.StatsNote).
func (r *Region) reexecStats() string {
	ro := r.roster.ro
	if ro == nil {
		return ""
	}
	ro.mu.Lock()
	defer ro.mu.Unlock()
	return ro.sm.StatsNote()
}
