package cape

// The exchange at the end of a region: the master gathers the slaves'
// deltas and values, merges, injects and sends the result; a slave sends
// its delta and injects what it receives. The messages are in internal/wire.

import (
	"errors"
	"fmt"
	"sync"
	"time"

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
	case n.rank == 0:
		sent, recvd, err = r.exchangeMaster(d)
	default:
		sent, recvd, err = r.exchangeSlave(d)
	}
	if err != nil {
		return err
	}
	n.fault("exchange", r.seq)
	if n.stats {
		us := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
		var in string
		if n.rank > 0 {
			in = fmt.Sprintf("; merged delta received: %d bytes, %d of them where this node wrote", r.mergedIn, r.ownIn)
		}
		statsf("cape: %s: region %s #%d: start %v, compute %v, create %v (%d pages, %d bytes), exchange %v = wait %v + merge/inject %v + send %v (sent %d, received %d bytes)%s%s%s%s\n",
			n.name, r.name, r.seq, us(r.starting), us(r.t1.Sub(r.t0)), us(r.created), r.pages, d.Len(),
			us(time.Since(t)), us(r.waited), us(r.merging), us(r.sent), sent, recvd, in, r.reexecStats(), r.faultStats(), r.hintStats())
	}
	return nil
}

// checkPointers checks, on the master after the merge, the pointers the
// region's writes stored in the arena, before any slave receives them.
// Slaves need not check: their arenas then equal the master's.
func (r *Region) checkPointers() error {
	if err := checkPointers(r.n.arena.Bytes()); err != nil {
		return r.fail(err)
	}
	return nil
}

func (r *Region) limits() delta.Limits {
	return delta.Limits{MaxBytes: int64(r.extent), MaxRuns: r.extent/2 + 1, ArenaSize: uint64(r.extent)}
}

// exchangeState is the storage of the end-of-region exchange, kept by the
// node from one region to the next so that, once it has grown to the
// job's deltas, the exchange allocates nothing (received payloads are given
// back to the transport, which reuses them). Decoded and merged deltas
// alias the payloads and the node's own delta until the exchange ends. It
// is used by the goroutine that runs the regions only (and, while it waits
// for them, by the goroutines Exchange starts).
type exchangeState struct {
	own       delta.Delta    // Create's delta, valid until the next region's Create
	in        []delta.Delta  // decoded: the slaves' deltas by rank (master), the merged one at 0 (slave)
	merged    delta.Delta    // master: the merge of every node's delta
	out       []delta.Delta  // master: per slave, merged less the slave's own bytes (runs alias merged)
	env       []outEnvelope  // per destination rank (the master at 0)
	ds        []*delta.Delta // by rank; live holds the committed ones
	parts     [][]byte       // by rank; liveParts holds the committed ones
	live      []*delta.Delta // master: the deltas to merge, the master's first, then the committed slaves' in rank order
	liveParts [][]byte
	errs      []error
	sent      []int               // per slave, bytes sent
	msgs      []transport.Message // master: Gather's table
}

// grow sizes the per-rank storage for a job of size nodes.
func (x *exchangeState) grow(size int) {
	if len(x.env) == size {
		return
	}
	x.in, x.out, x.env = make([]delta.Delta, size), make([]delta.Delta, size), make([]outEnvelope, size)
	x.ds, x.parts, x.errs, x.sent = make([]*delta.Delta, size), make([][]byte, size), make([]error, size), make([]int, size)
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
	bufs, err := x.env[0].Build(d, r.partials(), n.compression())
	if err != nil {
		return 0, 0, r.fail(err)
	}
	if err := n.slave.SendBuffers(kindDelta, r.seq, bufs); err != nil {
		return 0, 0, r.fail(err)
	}
	n.fault("broadcast", r.seq)
	sent = payloadLen(bufs)
	t := time.Now()
	r.sent = t.Sub(ts)
	msg, err := r.recvFromMaster(kindMerged)
	r.waited = time.Since(t)
	defer func() { r.merging = time.Since(t) - r.waited }()
	if err != nil {
		return sent, 0, r.fail(err)
	}
	if n.lazyS != nil && !r.last {
		recvd, err := len(msg.Payload)+n.lazyS.TakeFetched(), r.applyLazy(msg.Payload, d)
		n.slave.Release(msg.Payload)
		return sent, recvd, err
	}
	md := &x.in[0]
	vals, err := openEnvelopeRef(msg.Payload, md, r.limits())
	if err == nil {
		err = checkLabel(md, r.seq, delta.Merged)
	}
	if err != nil {
		return sent, len(msg.Payload), r.wrap("merged delta from the master", err)
	}
	// Values first: a malformed one is an error before any byte of the
	// arena is written.
	if err := r.setValues(vals); err != nil {
		return sent, len(msg.Payload), err
	}
	if err := n.willInject(md); err != nil {
		return sent, len(msg.Payload), r.wrap("merged delta from the master", err)
	}
	if err := md.Apply(n.arena.Bytes()[:r.extent]); err != nil {
		return sent, len(msg.Payload), r.wrap("merged delta from the master", err)
	}
	if n.stats {
		r.mergedIn, r.ownIn = md.Len(), delta.Overlap(md.Runs, d.Runs)
	}
	release(md)
	n.slave.Release(msg.Payload)
	return sent, len(msg.Payload), nil
}

func payloadLen(bufs [][]byte) int {
	n := 0
	for _, b := range bufs {
		n += len(b)
	}
	return n
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
		if msg.Kind == kindLive && msg.Seq == r.seq && want == kindMerged {
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
	t := time.Now()
	msgs, err := r.gather()
	if err != nil {
		return 0, 0, err
	}
	r.waited = time.Since(t)
	if r.replay {
		return r.replayMaster(msgs)
	}
	t = time.Now()
	if recvd, err = r.openSlaves(msgs); err != nil {
		return 0, recvd, err
	}
	// Diff's runs may carry bytes the node did not change: the merge tells
	// them from writes by the entry state, the master's twins (not yet
	// refreshed: nothing has been applied).
	base := delta.PagedBase(n.tracker.PageSize(), n.tracker.Twin)
	x.ds[0], x.parts[0] = own, r.partials()
	// The nodes that committed, in rank order: a lost one has no delta
	// (its units were re-executed).
	x.live, x.liveParts = append(x.live[:0], own), append(x.liveParts[:0], x.parts[0])
	for _, rank := range r.committed {
		x.live, x.liveParts = append(x.live, x.ds[rank]), append(x.liveParts, x.parts[rank])
	}
	// By reference: the merged runs alias the nodes' deltas (and so the
	// received payloads) except where they overlap.
	merged := &x.merged
	if err := delta.MergeBaseRef(merged, r.seq, base, x.live...); err != nil {
		return 0, recvd, r.mergeError(err)
	}
	// Values first: a malformed one is an error before any byte of the
	// arena is written.
	r.awaitHash() // the entry hash reads the arena until here
	if err := r.combineValues(x.liveParts); err != nil {
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
	r.merging = time.Since(t)
	t = time.Now()
	defer func() { r.sent = time.Since(t) }()
	n.announceLive(r.seq)
	switch {
	case n.lazyM != nil && !r.last:
		sent, err = r.sendLazy(merged, x.ds)
	case n.ckpt.broadcastAll():
		sent, err = r.broadcastMerged(merged)
	default:
		sent, err = r.sendMergedLessOwn(merged)
	}
	if err == nil {
		// Before the release: the log copies merged, which aliases the
		// payloads.
		err = r.logRegion(merged, x.ds, msgs, sent)
	}
	release(merged)
	clear(x.live)
	clear(x.liveParts)
	for _, rank := range r.committed {
		release(&x.in[rank])
		x.parts[rank] = nil
		n.master.Release(rank, msgs[rank].Payload)
	}
	if err == nil && r.ro != nil {
		r.ro.report()
	}
	return sent, recvd, err
}

// openSlaves decodes the slaves' envelopes in msgs (index = rank) into
// x.ds and x.parts, concurrently when they are large. The deltas alias the
// payloads; a slave that did not commit (lost) has none.
func (r *Region) openSlaves(msgs []transport.Message) (recvd int, err error) {
	n := r.n
	x := &n.xch
	clear(x.errs)
	clear(x.ds)
	for _, rank := range r.committed {
		recvd += len(msgs[rank].Payload)
	}
	if recvd < parallelDecodeBytes || len(r.committed) == 1 {
		for _, rank := range r.committed {
			r.openSlave(msgs, rank)
		}
	} else {
		r.eachSlave(func(rank int) { r.openSlave(msgs, rank) })
	}
	if err := errors.Join(x.errs...); err != nil {
		return recvd, r.wrap("delta from a slave", err)
	}
	for _, rank := range r.committed {
		x.ds[rank] = n.ckpt.received(&x.in[rank], n.tracker)
	}
	return recvd, nil
}

// openSlave decodes rank's envelope in msgs into x.in[rank] and
// x.parts[rank], or sets x.errs[rank].
func (r *Region) openSlave(msgs []transport.Message, rank int) {
	x := &r.n.xch
	vals, err := openEnvelopeRef(msgs[rank].Payload, &x.in[rank], r.limits())
	if err == nil {
		err = checkLabel(&x.in[rank], r.seq, rank)
	}
	x.errs[rank] = nil
	if err != nil {
		x.errs[rank] = fmt.Errorf("node %d: %w", rank, err)
	}
	x.parts[rank] = vals
}

// eachSlave runs f for the rank of every slave that committed its delta
// concurrently, the first in the calling goroutine, and waits for them.
func (r *Region) eachSlave(f func(rank int)) {
	if len(r.committed) == 0 {
		return
	}
	var wg sync.WaitGroup
	for _, rank := range r.committed[1:] {
		wg.Go(func() { f(rank) })
	}
	f(r.committed[0])
	wg.Wait()
}

// broadcastMerged sends every slave the same delta, what the checkpoint
// mode makes of merged (the complete baseline: the whole arena), in one
// broadcast, which may be relayed.
func (r *Region) broadcastMerged(merged *delta.Delta) (sent int, err error) {
	n := r.n
	out := n.ckpt.outgoing(merged, n.arena.Bytes()[:r.extent])
	buf, err := r.envelope(out, r.results())
	if err != nil {
		return 0, err
	}
	if err := n.master.Broadcast(transport.Message{Kind: kindMerged, Seq: r.seq, Payload: buf}); err != nil {
		if !n.loseAfterCommit(r, err) {
			return 0, r.fail(err)
		}
	}
	return len(buf) * len(r.committed), nil
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
	total := 0
	for _, rank := range r.committed {
		o := &x.out[rank]
		o.Reset(r.seq, delta.Merged)
		if !r.last {
			o.Runs = delta.Exclude(o.Runs, merged.Runs, x.ds[rank].Runs)
		}
		total += o.Len()
	}
	clear(x.errs)
	if total < parallelSendBytes || len(r.committed) == 1 {
		for _, rank := range r.committed {
			r.sendLessOwn(rank, vals)
		}
	} else {
		r.eachSlave(func(rank int) { r.sendLessOwn(rank, vals) })
	}
	for _, rank := range r.committed {
		sent += x.sent[rank]
		release(&x.out[rank])
	}
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

// sendLessOwn sends x.out[rank] and vals to rank, setting x.sent[rank]
// and x.errs[rank].
func (r *Region) sendLessOwn(rank int, vals []byte) {
	x := &r.n.xch
	x.sent[rank] = 0
	bufs, err := x.env[rank].Build(&x.out[rank], vals, r.n.compression())
	if err == nil {
		x.sent[rank] = payloadLen(bufs)
		err = r.n.master.SendBuffers(rank, kindMerged, r.seq, bufs)
	}
	x.errs[rank] = err
}

// release empties d, whose runs alias memory it does not own, and drops
// those references so that the memory can be collected. (Every delta whose
// runs alias is released after use, so the table holds no reference past
// its length.)
func release(d *delta.Delta) {
	clear(d.Runs)
	d.Reset(0, 0)
}

// mergeError says what a failed merge means for the user: for a conflict,
// which nodes wrote different values to which element of which variable.
func (r *Region) mergeError(err error) error {
	var ce *delta.ConflictError
	if !errors.As(err, &ce) {
		return r.fail(err)
	}
	a, b, va, vb := ce.NodeA, ce.NodeB, ce.ValueA, ce.ValueB
	if a > b {
		a, b, va, vb = b, a, vb, va
	}
	in := describe(int(ce.Offset))
	if in == "" {
		in = fmt.Sprintf("arena offset %#x (no live allocation)", ce.Offset)
	}
	return r.errorf("nodes %d and %d wrote different values to %s (%#02x vs %#02x)", a, b, in, va, vb)
}

// gather returns the slaves' delta messages indexed by rank and sets
// r.committed to the ranks that committed one; a lost slave has none (its
// units were re-executed).
func (r *Region) gather() ([]transport.Message, error) {
	if r.ro == nil {
		// The region ran no loop through First or Chunks on the master
		// (hand-written code using Static): its slaves' units are unknown,
		// so a loss is an error here.
		r.ro = r.newRoster(0, Static, 0, false)
	}
	msgs, committed, err := r.ro.collect()
	if err != nil {
		if r.ro.sm.Dynamic() {
			err = fmt.Errorf("dynamic schedule: %w", err)
		}
		return nil, r.fail(err)
	}
	r.committed = committed
	return msgs, nil
}

// envelope encodes values and a delta into one payload.
func (r *Region) envelope(d *delta.Delta, vals []byte) ([]byte, error) {
	buf, err := appendEnvelope(make([]byte, 0, 64+len(vals)+d.Len()), d, vals, r.n.compression())
	if err != nil {
		return nil, r.fail(err)
	}
	return buf, nil
}

// open reads an envelope received in this region.
func (r *Region) open(p []byte) (vals []byte, d *delta.Delta, err error) {
	return openEnvelope(p, r.limits())
}
