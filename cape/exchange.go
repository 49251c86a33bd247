package cape

// The exchange at the end of a region: the master gathers the slaves'
// deltas and values, merges, injects and sends the result; a slave sends
// its delta and injects what it receives. The messages are in protocol.go.

import (
	"errors"
	"fmt"
	"os"
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
	case n.size == 1:
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
		fmt.Fprintf(os.Stderr, "cape: %s: region %s #%d: compute %v, create %v (%d pages, %d bytes), exchange %v = wait %v + merge/inject %v + send %v (sent %d, received %d bytes)\n",
			n.name, r.name, r.seq, us(r.t1.Sub(r.t0)), us(r.created), r.pages, d.Len(),
			us(time.Since(t)), us(r.waited), us(r.merging), us(r.sent), sent, recvd)
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

func (r *Region) exchangeSlave(d *delta.Delta) (sent, recvd int, err error) {
	n := r.n
	ts := time.Now()
	buf, err := r.envelope(d, r.partials())
	if err != nil {
		return 0, 0, err
	}
	if err := n.slave.Send(transport.Message{Kind: kindDelta, Seq: r.seq, Payload: buf}); err != nil {
		return 0, 0, r.fail(err)
	}
	t := time.Now()
	r.sent = t.Sub(ts)
	msg, err := r.recvFromMaster(kindMerged)
	r.waited = time.Since(t)
	defer func() { r.merging = time.Since(t) - r.waited }()
	if err != nil {
		return len(buf), 0, r.fail(err)
	}
	vals, md, err := r.open(msg.Payload)
	if err == nil {
		err = checkLabel(md, r.seq, delta.Merged)
	}
	if err != nil {
		return len(buf), len(msg.Payload), r.wrap("merged delta from the master", err)
	}
	// Values first: a malformed one is an error before any byte of the
	// arena is written.
	if err := r.setValues(vals); err != nil {
		return len(buf), len(msg.Payload), err
	}
	if err := md.Apply(n.arena.Bytes()[:r.extent]); err != nil {
		return len(buf), len(msg.Payload), r.wrap("merged delta from the master", err)
	}
	return len(buf), len(msg.Payload), nil
}

// recvFromMaster receives the next message of kind want, handling the
// master's end-of-job and abort messages.
func (r *Region) recvFromMaster(want uint8) (transport.Message, error) {
	msg, err := r.n.slave.Recv()
	if err != nil {
		return msg, err
	}
	return msg, fromMaster(msg, want, r.seq)
}

func (r *Region) exchangeMaster(own *delta.Delta) (sent, recvd int, err error) {
	n := r.n
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
	ds := make([]*delta.Delta, n.size)
	parts := make([][]byte, n.size)
	ds[0], parts[0] = own, r.partials()
	errs := make([]error, n.size)
	var wg sync.WaitGroup
	for rank := 1; rank < n.size; rank++ {
		recvd += len(msgs[rank].Payload)
		wg.Go(func() {
			vals, d, err := r.open(msgs[rank].Payload)
			if err == nil {
				err = checkLabel(d, r.seq, rank)
			}
			if err != nil {
				errs[rank] = fmt.Errorf("node %d: %w", rank, err)
			}
			ds[rank], parts[rank] = d, vals
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, recvd, r.wrap("delta from a slave", err)
	}
	for rank := 1; rank < n.size; rank++ {
		ds[rank] = n.ckpt.received(ds[rank], n.tracker)
	}
	// Diff's runs may carry bytes the node did not change: the merge tells
	// them from writes by the entry state, the master's twins (not yet
	// refreshed: nothing has been applied).
	base := delta.PagedBase(n.tracker.PageSize(), n.tracker.Twin)
	merged, err := delta.MergeBase(r.seq, base, ds...)
	if err != nil {
		return 0, recvd, r.mergeError(err)
	}
	// Values first: a malformed one is an error before any byte of the
	// arena is written.
	r.awaitHash() // the entry hash reads the arena until here
	if err := r.combineValues(parts); err != nil {
		return 0, recvd, err
	}
	if err := merged.Apply(n.arena.Bytes()[:r.extent]); err != nil {
		return 0, recvd, r.wrap("merged delta", err)
	}
	if err := r.checkPointers(); err != nil {
		return 0, recvd, err
	}
	injected := merged // for the durable log
	merged = n.ckpt.outgoing(merged, n.arena.Bytes()[:r.extent])
	r.merging = time.Since(t)
	t = time.Now()
	defer func() { r.sent = time.Since(t) }()
	buf, err := r.envelope(merged, r.results())
	if err != nil {
		return 0, recvd, err
	}
	if err := n.master.Broadcast(transport.Message{Kind: kindMerged, Seq: r.seq, Payload: buf}); err != nil {
		return 0, recvd, r.fail(err)
	}
	if err := r.logRegion(injected, ds, msgs, len(buf)); err != nil {
		return 0, recvd, err
	}
	return len(buf) * (n.size - 1), recvd, nil
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

// gather returns one kindDelta message from every slave (index = rank).
func (r *Region) gather() ([]transport.Message, error) {
	n := r.n
	if r.dyn != nil {
		msgs, err := r.dyn.wait()
		if err != nil {
			return nil, r.fail(err)
		}
		return msgs, nil
	}
	msgs, err := n.master.Gather()
	if err != nil {
		return nil, r.fail(err)
	}
	for rank := 1; rank < n.size; rank++ {
		if err := fromSlave(msgs[rank], rank, r.seq, false); err != nil {
			return nil, r.fail(err)
		}
	}
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
