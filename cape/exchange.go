package cape

// The exchange at the end of a region: the master gathers the slaves'
// deltas and values, merges, injects and sends the result; a slave sends
// its delta and injects what it receives. The messages are in internal/wire.

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// Exchange makes every node's arena equal: the master gathers the slaves'
// deltas, merges them with its own (a conflict is an error naming both
// nodes), injects the result and sends it to the slaves; a slave sends d and
// injects the merged delta it receives. Registered reductions and lastprivate
// values are combined in the same exchange.
func (r *Region) Exchange(d *delta.Delta) error {
	if r.state != stStopped {
		return r.errorf("Exchange before End (Stop)")
	}
	r.state = stExchanged
	n := r.n
	if r.nested != nil {
		return r.combineValues(nil)
	}
	n.fault("send", r.seq)
	t := time.Now()
	var err error
	var sent, recvd int
	switch {
	case r.size == 1:
		// A single node, or a master left alone: its arena holds the result.
		err = r.exchangeSingle(d)
	case n.homes != nil && n.rank == 0:
		sent, recvd, err = r.exchangeHomesMaster(d)
	case n.homes != nil:
		sent, recvd, err = r.exchangeHomesSlave(d)
	case n.rank == 0:
		sent, recvd, err = r.exchangeMaster(d)
	default:
		sent, recvd, err = r.exchangeSlave(d)
	}
	if err != nil {
		return err
	}
	n.fault("exchange", r.seq)
	if r.stats != nil {
		r.printStats(d, time.Since(t), sent, recvd)
	}
	return nil
}

// checkPointers checks, on the master after the merge, the pointers the
// region's writes stored in the arena, before any slave receives them.
// Slaves need not check: their arenas then equal the master's.
func (r *Region) checkPointers() error {
	if err := allocTable.CheckPointers(r.n.arena.Bytes()); err != nil {
		return r.fail(err)
	}
	return nil
}

func (r *Region) limits() delta.Limits { return exchange.Limits(r.extent) }

// exchangeState is the storage of the end-of-region exchange, kept by the
// node from one region to the next so that, once it has grown to the
// job's deltas, the exchange allocates nothing (received payloads are given
// back to the transport, which reuses them). Decoded and merged deltas
// alias the payloads and the node's own delta until the exchange ends. It
// is used by the goroutine that runs the regions only (and, while it waits
// for them, by the goroutines Exchange starts).
type exchangeState struct {
	own delta.Delta // Create's delta, valid until the next region's Create
	// The merge's storage (exchange.Master); on a slave, In[0] is the
	// merged delta received.
	exchange.Master
	env []wire.OutEnvelope // per destination rank (the master at 0)
	// extent: a slave's delta message's first bytes (wire.AppendExtent)
	extent []byte
	errs   []error
	sent   []int               // per slave, bytes sent
	msgs   []transport.Message // master: Gather's table
}

// grow sizes the per-rank storage for a job of size nodes.
func (x *exchangeState) grow(size int) {
	x.Master.Grow(size)
	if len(x.env) == size {
		return
	}
	x.env, x.errs, x.sent = make([]wire.OutEnvelope, size), make([]error, size), make([]int, size)
}

// Thresholds above which the master decodes, and sends to, the slaves
// concurrently, one goroutine each; below, one goroutine doing them in turn
// costs less than waking others.
const (
	parallelDecodeBytes = 256 << 10
	parallelSendBytes   = 64 << 10
)

func (r *Region) exchangeSlave(d *delta.Delta) (sent, recvd int, err error) {
	n := r.n
	x := &n.xch
	x.grow(n.size)
	ts := time.Now()
	x.extent = wire.AppendExtent(x.extent[:0], r.extent/n.arena.PageSize())
	bufs, err := x.env[0].BuildAfter(x.extent, d, r.partials(), n.compression())
	if err != nil {
		return 0, 0, r.fail(err)
	}
	if err := n.slave.SendBuffers(wire.Delta, r.seq, bufs); err != nil {
		return 0, 0, r.fail(err)
	}
	n.fault("broadcast", r.seq)
	sent = x.env[0].Len()
	t := time.Now()
	msg, err := r.recvFromMaster(wire.Merged)
	if st := r.stats; st != nil {
		st.sent, st.waited = t.Sub(ts), time.Since(t)
		defer func() { st.merging = time.Since(t) - st.waited }()
	}
	if err != nil {
		return sent, 0, r.fail(err)
	}
	if n.lazyS != nil && !r.hints.last {
		recvd, err := len(msg.Payload)+n.lazyS.TakeFetched(), r.applyLazy(msg.Payload, d)
		n.slave.Release(msg.Payload)
		return sent, recvd, err
	}
	md := &x.In[0]
	vals, err := wire.OpenLabelled(msg.Payload, md, r.limits(), r.seq, delta.Merged)
	if err != nil {
		return sent, len(msg.Payload), r.wrap("merged delta from the master", err)
	}
	if err := r.injectMerged(vals, md, d, md.Apply); err != nil {
		return sent, len(msg.Payload), err
	}
	exchange.Release(md)
	n.slave.Release(msg.Payload)
	return sent, len(msg.Payload), nil
}

// injectMerged is a slave's taking of the master's merged result, eager or
// lazy: the values vals, then the bytes of md, which apply writes into the
// region's extent of the arena. own is the node's delta of the region, for
// --stats.
func (r *Region) injectMerged(vals []byte, md, own *delta.Delta, apply func(arena []byte) error) error {
	n := r.n
	// Values first: a malformed one is an error before any byte of the
	// arena is written.
	if err := r.setValues(vals); err != nil {
		return err
	}
	if err := n.willInject(md); err != nil {
		return r.wrap("merged delta from the master", err)
	}
	if err := apply(n.arena.Bytes()[:r.extent]); err != nil {
		return r.wrap("merged delta from the master", err)
	}
	if st := r.stats; st != nil {
		st.mergedIn, st.ownIn = md.Len(), delta.Overlap(md.Runs, own.Runs)
	}
	return nil
}

// recvFromMaster receives the next message of kind want, handling the
// master's end-of-job, abort and leave messages, and adopting the live set
// it sends before a merged delta.
func (r *Region) recvFromMaster(want uint8) (transport.Message, error) {
	for {
		msg, err := r.n.slave.Recv()
		if err != nil {
			return msg, err
		}
		if msg.Kind == wire.Live && msg.Seq == r.seq && want == wire.Merged {
			if err := r.n.adoptLive(msg.Payload); err != nil {
				return msg, err
			}
			continue
		}
		return msg, fromMaster(msg, want, r.seq)
	}
}

func (r *Region) exchangeMaster(own *delta.Delta) (sent, recvd int, err error) {
	n := r.n
	x := &n.xch
	x.grow(n.size)
	st := r.stats
	t := time.Now()
	msgs, err := r.gather()
	if err != nil {
		return 0, 0, err
	}
	if st != nil {
		st.waited = time.Since(t)
	}
	if r.replaying() {
		return r.replayMaster(msgs)
	}
	t = time.Now()
	if recvd, err = r.openSlaves(msgs); err != nil {
		return 0, recvd, err
	}
	// Diff's runs may carry bytes the node did not change: the merge tells
	// them from writes by the entry state, the master's twins (not yet
	// refreshed: nothing has been applied). By reference: the merged runs
	// alias the nodes' deltas (and so the received payloads) except where
	// they overlap. The nodes that committed, in rank order: a lost one
	// has no delta (its units were re-executed).
	base := delta.PagedBase(n.tracker.PageSize(), n.tracker.Twin)
	merged, parts, err := x.Merge(r.seq, base, own, r.partials(), r.roster.committed, r.mergeRule())
	if err != nil {
		return 0, recvd, r.mergeError(err)
	}
	// Values first: a malformed one is an error before any byte of the
	// arena is written.
	r.awaitHash() // the entry hash reads the arena until here
	if err := r.combineValues(parts); err != nil {
		return 0, recvd, err
	}
	if err := n.willInject(merged); err != nil {
		return 0, recvd, r.wrap("merged delta", err)
	}
	if err := merged.Apply(n.arena.Bytes()[:r.extent]); err != nil {
		return 0, recvd, r.wrap("merged delta", err)
	}
	if err := r.checkPointers(); err != nil {
		return 0, recvd, err
	}
	if st != nil {
		st.merging = time.Since(t)
		t = time.Now()
		defer func() { st.sent = time.Since(t) }()
	}
	n.announceLive(r.seq)
	switch {
	case n.lazyM != nil && !r.hints.last:
		sent, err = r.sendLazy(merged, x.Deltas)
	case n.ckpt.BroadcastAll():
		sent, err = r.broadcastMerged(merged)
	default:
		sent, err = r.sendMergedLessOwn(merged)
	}
	if err == nil {
		// Before the release: the log copies merged, which aliases the
		// payloads.
		err = r.logRegion(merged, x.Deltas, msgs, sent)
	}
	x.Release(r.roster.committed)
	for _, rank := range r.roster.committed {
		n.master.Release(rank, msgs[rank].Payload)
	}
	if err == nil && r.roster.ro != nil {
		r.roster.ro.report()
	}
	return sent, recvd, err
}

// openSlaves decodes the slaves' envelopes in msgs (index = rank) into
// x.Deltas and x.Parts, concurrently when they are large. The deltas alias the
// payloads; a slave that did not commit (lost) has none.
func (r *Region) openSlaves(msgs []transport.Message) (recvd int, err error) {
	n := r.n
	x := &n.xch
	clear(x.errs)
	clear(x.Deltas)
	for _, rank := range r.roster.committed {
		recvd += len(msgs[rank].Payload)
	}
	if recvd < parallelDecodeBytes || len(r.roster.committed) == 1 {
		for _, rank := range r.roster.committed {
			r.openSlave(msgs, rank)
		}
	} else {
		r.eachSlave(func(rank int) { r.openSlave(msgs, rank) })
	}
	if err := errors.Join(x.errs...); err != nil {
		return recvd, r.wrap("delta from a slave", err)
	}
	for _, rank := range r.roster.committed {
		x.Deltas[rank] = n.ckpt.Received(&x.In[rank], n.tracker)
	}
	return recvd, nil
}

// openSlave decodes rank's envelope in msgs into x.In[rank] and
// x.Parts[rank], or sets x.errs[rank].
func (r *Region) openSlave(msgs []transport.Message, rank int) {
	x := &r.n.xch
	x.errs[rank], x.Parts[rank] = nil, nil
	pages, env, err := wire.SplitExtent(msgs[rank].Payload)
	if mine := r.extent / r.n.arena.PageSize(); err == nil && pages != mine {
		x.errs[rank] = arenasDiffer(rank, pages, mine)
		return
	}
	var vals []byte
	if err == nil {
		vals, err = wire.OpenLabelled(env, &x.In[rank], r.limits(), r.seq, rank)
	}
	if err != nil {
		x.errs[rank] = fmt.Errorf("node %d: %w", rank, err)
	}
	x.Parts[rank] = vals
}

// eachSlave runs f for the rank of every slave that committed its delta
// concurrently, the first in the calling goroutine, and waits for them.
func (r *Region) eachSlave(f func(rank int)) {
	committed := r.roster.committed
	if len(committed) == 0 {
		return
	}
	var wg sync.WaitGroup
	for _, rank := range committed[1:] {
		wg.Go(func() { f(rank) })
	}
	f(committed[0])
	wg.Wait()
}

// broadcastMerged sends every slave the same delta, what the checkpoint
// mode makes of merged (the complete baseline: the whole arena), in one
// broadcast, which may be relayed.
func (r *Region) broadcastMerged(merged *delta.Delta) (sent int, err error) {
	n := r.n
	out := n.ckpt.Outgoing(merged, n.arena.Bytes()[:r.extent])
	buf, err := r.envelope(out, r.results())
	if err != nil {
		return 0, err
	}
	if err := n.master.Broadcast(transport.Message{Kind: wire.Merged, Seq: r.seq, Payload: buf}); err != nil {
		if !n.loseAfterCommit(r, err) {
			return 0, r.fail(err)
		}
	}
	return len(buf) * len(r.roster.committed), nil
}

// sendMergedLessOwn sends each slave the merged delta less the bytes of its
// own delta (delta.Exclude): no node receives bytes it wrote. After the
// program's last region (Region.Last), which the slaves leave, they get
// the values only, with no bytes. The payloads
// differ, so they cannot be relayed; each goes straight to its slave, its
// run data written from merged by reference. Large ones go concurrently.
func (r *Region) sendMergedLessOwn(merged *delta.Delta) (sent int, err error) {
	n := r.n
	x := &n.xch
	vals := r.results()
	committed := r.roster.committed
	total := x.LessOwn(r.seq, committed, r.hints.last)
	clear(x.errs)
	if total < parallelSendBytes || len(committed) == 1 {
		for _, rank := range committed {
			r.sendLessOwn(rank, vals)
		}
	} else {
		r.eachSlave(func(rank int) { r.sendLessOwn(rank, vals) })
	}
	for _, rank := range committed {
		sent += x.sent[rank]
	}
	x.ReleaseOut(committed)
	for _, err := range x.errs {
		// A slave lost while it is sent the result (committed: the region
		// is done) only takes no share of the next regions, if the policy
		// allows.
		if err != nil && !n.loseAfterCommit(r, err) {
			return sent, r.fail(err)
		}
	}
	return sent, nil
}

// sendLessOwn sends x.Out[rank] and vals to rank, setting x.sent[rank]
// and x.errs[rank].
func (r *Region) sendLessOwn(rank int, vals []byte) {
	x := &r.n.xch
	x.sent[rank] = 0
	bufs, err := x.env[rank].Build(&x.Out[rank], vals, r.n.compression())
	if err == nil {
		x.sent[rank] = x.env[rank].Len()
		err = r.n.master.SendBuffers(rank, wire.Merged, r.seq, bufs)
	}
	x.errs[rank] = err
}

// mergeError says what a failed merge means for the user: for a conflict,
// which nodes wrote different values to which element of which variable.
// arenaVars tells merges where the program's variables lie in the arena
// (allocs.Table.Starts): made once, so that a merge does not allocate it.
var arenaVars delta.Locations = allocTable.Starts

// mergeRule is what conflicts in r's merge besides different values in
// one byte: two writes of different bytes of one variable, and with
// updates two writes of one byte.
func (r *Region) mergeRule() delta.Rule {
	return delta.Rule{Updates: r.updates, Locations: arenaVars}
}

func (r *Region) mergeError(err error) error {
	ce, ok := exchange.Conflict(err)
	if !ok {
		return r.fail(err)
	}
	in := allocTable.Describe(int(ce.Offset))
	if in == "" {
		in = fmt.Sprintf("arena offset %#x (no live allocation)", ce.Offset)
	}
	if ce.Mixed {
		return r.errorf("nodes %d and %d wrote different bytes of %s, which would hold a value neither wrote: two iterations on two nodes wrote one element (the same race under OpenMP); write each element in one iteration only, or use a reduction clause", ce.NodeA, ce.NodeB, in)
	}
	if ce.Same {
		return r.errorf("nodes %d and %d both updated %s: two iterations on two nodes updated one element, each from its value at the region's entry, so the updates would not add up (the same race under OpenMP); use a reduction clause (reduction(+:array) for a histogram), or update each element in one iteration only", ce.NodeA, ce.NodeB, in)
	}
	if r.updates {
		// A loop that updates shared elements: the likelier cause is an
		// update race (hist[k]++ from two nodes), not two plain writes.
		return r.errorf("nodes %d and %d both changed %s, to different values (their first differing byte %#02x vs %#02x): two iterations on two nodes wrote or updated one element (the same race under OpenMP); use a reduction clause (reduction(+:array) for a histogram), or write each element in one iteration only", ce.NodeA, ce.NodeB, in, ce.ValueA, ce.ValueB)
	}
	return r.errorf("nodes %d and %d wrote different values to %s (their first differing byte %#02x vs %#02x)", ce.NodeA, ce.NodeB, in, ce.ValueA, ce.ValueB)
}

// gather returns the slaves' delta messages indexed by rank and sets
// r.roster.committed to the ranks that committed one; a lost slave has none (its
// units were re-executed).
func (r *Region) gather() ([]transport.Message, error) {
	if r.roster.ro == nil {
		// The region ran no loop through First or Chunks on the master
		// (hand-written code using Static): its slaves' units are unknown,
		// so a loss is an error here.
		r.roster.ro = r.newRoster(0, Static, 0, false)
	}
	msgs, committed, err := r.roster.ro.collect()
	if err != nil {
		if r.roster.ro.sm.Dynamic() {
			err = fmt.Errorf("dynamic schedule: %w", err)
		}
		return nil, r.fail(err)
	}
	r.roster.committed = committed
	return msgs, nil
}

// envelope encodes values and a delta into one payload.
func (r *Region) envelope(d *delta.Delta, vals []byte) ([]byte, error) {
	buf, err := wire.AppendEnvelope(make([]byte, 0, 64+len(vals)+d.Len()), d, vals, r.n.compression())
	if err != nil {
		return nil, r.fail(err)
	}
	return buf, nil
}
