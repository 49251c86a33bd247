package cape

// Re-execution: the master's driver of the roster (internal/roster), the
// state machine that decides which node runs which unit of a region,
// commits each slave's delta once, and declares slaves lost (a failed
// connection, a straggler) under the job's --max-lost policy, their units
// then re-run by the master or, for dynamic and guided loops, by any
// survivor asking for a chunk. This file owns what the roster may not: one
// receiver goroutine per slave that takes its chunk requests and its delta,
// the sockets, the clock, the waits and the notices.

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/transport"
)

// unit is a share of a region's iterations, [lo, hi); section s is [s, s+1).
type unit struct{ lo, hi int }

// rosterDriver is the master's driver of one region's roster. The node keeps
// one and resets it for each region (so that a region allocates nothing
// for it), with one receiver goroutine per slave for the job's life,
// started for each region on its start channel. Its methods are safe for
// concurrent use: the region's goroutine and the receivers share it. A
// receiver still serving an earlier region (a straggler's, refusing its
// late messages) carries that region's seq and touches nothing of a later
// one.
type rosterDriver struct {
	r *Region
	n *node

	start []chan uint64 // per slave rank: a region's seq, for its receiver

	mu sync.Mutex
	// mu protects the following fields. node.lossMu is taken after it.
	sm   *roster.Roster      // the decisions; it reads and updates n.mem
	msgs []transport.Message // by rank: its delta, committed (Kind ≠ 0)

	wake *waker // a slave committed, was lost, or asked
}

// newRoster resets the node's roster for r: the units of every live node,
// and starts the receivers of the live slaves. Without rerun (the region's
// units are not known: its loop did not go through First or Chunks) a loss
// is an error.
func (r *Region) newRoster(count int, sched Schedule, chunk int, rerun bool) *rosterDriver {
	n := r.n
	ro := n.rost
	if ro == nil {
		ro = &rosterDriver{n: n, wake: newWaker(), sm: roster.New(&n.mem.Members)}
		n.rost = ro
	}
	n.includeJoined()
	ro.mu.Lock()
	defer ro.mu.Unlock()
	ro.grow(n.size)
	ro.r = r
	clear(ro.msgs)
	ro.wake.clear() // a signal left by the previous region
	n.lossMu.Lock()
	ro.sm.Step(roster.Event{Kind: roster.Begin, At: r.t0, Region: roster.Region{Seq: r.seq, Count: count, Chunk: chunk,
		Dynamic: sched != Static, Guided: sched == Guided, Nodes: r.size, Rerun: rerun}})
	n.lossMu.Unlock()
	ro.sm.Ready()
	for _, rank := range n.mem.Live[1:] {
		ro.start[rank] <- r.seq
	}
	return ro
}

// grow sizes the roster's per-rank tables for a job of size nodes (it
// grows when nodes join) and starts the receivers of the new ranks. ro.mu
// must be held.
func (ro *rosterDriver) grow(size int) {
	old := len(ro.start)
	if old >= size {
		return
	}
	ro.msgs = append(ro.msgs, make([]transport.Message, size-old)...)
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
func (ro *rosterDriver) serve(rank int, start <-chan uint64) {
	for {
		msg, err := ro.n.master.Recv(rank)
		seq, ok := <-start
		if !ok {
			return
		}
		ro.receive(rank, seq, msg, err)
	}
}

// staticUnits returns the units of virtual rank v of size nodes: its block
// (chunk ≤ 0) or its block-cyclic chunks.
func staticUnits(count, chunk, v, size int) []unit {
	rus := roster.AppendStatic(nil, count, chunk, v, size)
	us := make([]unit, len(rus))
	for i, u := range rus {
		us[i] = unit{u.Lo, u.Hi}
	}
	return us
}

// receive serves one slave for the region: its chunk requests, then its
// delta. msg and err are what the first Recv of the region returned. After
// the slave is declared a straggler it keeps receiving, to refuse what the
// slave sends late.
func (ro *rosterDriver) receive(rank int, seq uint64, msg transport.Message, err error) {
	for ; ; msg, err = ro.n.master.Recv(rank) {
		if err != nil {
			ro.step(roster.Event{Kind: roster.Closed, Rank: rank, Seq: seq, Err: err, At: time.Now()}, nil)
			return
		}
		c, ok := ro.step(roster.Event{Kind: roster.Recv, Rank: rank, Seq: seq, MsgKind: msg.Kind, MsgSeq: msg.Seq,
			Delta: msg.Kind == kindDelta, At: time.Now()}, &msg)
		if !ok {
			return
		}
		// The chunk is sent with no lock held: the send may block.
		if err := ro.n.master.Send(rank, transport.Message{Kind: kindChunk, Seq: c.Seq, Payload: chunkPayload(c.Unit.Lo, c.Unit.Hi)}); err != nil {
			ro.step(roster.Event{Kind: roster.Closed, Rank: rank, Seq: seq, Err: err, At: time.Now()}, nil)
			return
		}
	}
}

// step feeds the roster ev and carries out its actions; msg is the
// message ev reports (Recv), validated here against the region. It
// returns the chunk to send the slave, if any (ok): its receiver then
// waits for the slave's next message.
func (ro *rosterDriver) step(ev roster.Event, msg *transport.Message) (chunk roster.Action, ok bool) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	if msg != nil && ev.Seq == ro.sm.Seq() {
		ev.Err = fromSlave(*msg, ev.Rank, ev.Seq, ro.sm.Dynamic())
	}
	n := ro.n
	n.lossMu.Lock()
	defer n.lossMu.Unlock()
	ro.sm.Step(ev)
	acts := ro.sm.Ready()
	ro.act(acts, msg)
	for _, a := range acts {
		if a.Kind == roster.Chunk {
			return a, true
		}
	}
	return roster.Action{}, false
}

// act carries out the roster's actions but the chunks to send (step) and
// the master's own (next). ro.mu and n.lossMu must be held.
func (ro *rosterDriver) act(acts []roster.Action, msg *transport.Message) {
	n := ro.n
	for _, a := range acts {
		switch a.Kind {
		case roster.Commit:
			ro.msgs[a.Rank] = *msg
		case roster.Wake:
			ro.wake.signal()
		case roster.Drop:
			_ = n.master.Drop(a.Rank)
		case roster.Refuse:
			notice("cape: master: refused node %d's late message (kind %d, region #%d): it was declared lost\n",
				a.Rank, a.MsgKind, a.MsgSeq)
		case roster.Declare:
			n.declareLost(a.Rank, a.Seq, a.Straggler)
		case roster.Lost:
			where := "the master re-runs them"
			if a.Dynamic {
				where = "they go back to the pool, for the first survivor to ask (the master included)"
			}
			notice("cape: master: lost node %d at %s, %v into %s: %v; its %s: %s\n",
				a.Rank, a.At.Format("15:04:05.000"), short(a.At.Sub(ro.r.t0)), ro.r.label(), a.Err, describeUnits(a.Units), where)
		case roster.Leave:
			leave := transport.Message{Kind: kindLeave, Seq: a.Seq,
				Payload: []byte(fmt.Sprintf("node %d straggled in %s; its units ran elsewhere", a.Rank, ro.r.label()))}
			rank := a.Rank
			go func() { _ = n.master.Send(rank, leave) }()
		case roster.Recovered:
			notice("cape: master: %s recovered from the loss of node %s in %v: the master re-ran %s in %v; next regions are shared by nodes %v\n",
				ro.r.label(), joinInts(a.Ranks), short(a.Took), plural(a.Count, "unit"), short(a.Reexec), n.mem.Live)
		}
	}
}

// describeUnits lists units briefly.
func describeUnits(us []roster.Unit) string {
	if len(us) == 0 {
		return "units: none (it had not asked for a chunk)"
	}
	var parts []string
	iters := 0
	for i, u := range us {
		iters += u.Hi - u.Lo
		if i < 4 {
			parts = append(parts, fmt.Sprintf("[%d, %d)", u.Lo, u.Hi))
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
func (ro *rosterDriver) next() (unit, bool) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	n := ro.n
	ev := roster.Event{Kind: roster.NextUnit, At: time.Now()}
steps:
	for {
		n.lossMu.Lock()
		ro.sm.Step(ev)
		acts := ro.sm.Ready()
		ro.act(acts, nil)
		n.lossMu.Unlock()
		for _, a := range acts {
			switch a.Kind {
			case roster.Run:
				return unit{a.Unit.Lo, a.Unit.Hi}, true
			case roster.Done:
				return unit{}, false
			case roster.Wait:
				t := time.Now()
				ro.mu.Unlock()
				ro.wake.wait(a.At)
				ro.mu.Lock()
				now := time.Now()
				n.lossMu.Lock()
				ro.sm.Step(roster.Event{Kind: roster.Tick, At: now, Waited: now.Sub(t)})
				ro.act(ro.sm.Ready(), nil)
				n.lossMu.Unlock()
				ev = roster.Event{Kind: roster.NextUnit, At: now}
				// acts is the roster's, reused by the steps taken
				// during the wait: none of it may be read again.
				continue steps
			}
		}
	}
}

// ownLeft is the number of the master's own static units not run yet.
func (ro *rosterDriver) ownLeft() int {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	return ro.sm.OwnLeft()
}

// collect waits for every slave to commit or be lost and returns the
// committed deltas, indexed by rank (Kind 0 for lost nodes), and the ranks
// that committed, ascending; both are the roster's, valid until the next
// region. A loss whose units the master could not re-run (its iterator had
// ended) is an error.
func (ro *rosterDriver) collect() ([]transport.Message, []int, error) {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	for !ro.sm.Settled() {
		ro.mu.Unlock()
		ro.wake.wait(time.Time{})
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
func (ro *rosterDriver) report() {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	n := ro.n
	n.lossMu.Lock()
	defer n.lossMu.Unlock()
	ro.sm.Step(roster.Event{Kind: roster.End, At: time.Now()})
	ro.act(ro.sm.Ready(), nil)
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
	lost, units, reexec, waitedT := ro.sm.Stats()
	var waited string
	if waitedT > 0 {
		// With re-execution on, the master's loop ends when every slave
		// has committed: its compute includes that wait.
		waited = fmt.Sprintf("; of the compute, %v waiting for the slaves' deltas", waitedT.Round(time.Microsecond))
	}
	if len(lost) == 0 {
		return waited
	}
	return fmt.Sprintf(", lost node %s: re-executed %s on the master in %v", joinInts(lost),
		plural(units, "unit"), reexec.Round(time.Microsecond)) + waited
}

// short rounds a duration for a report: to the microsecond below a
// millisecond, else to the millisecond.
func short(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
