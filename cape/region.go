package cape

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"sync"
	"time"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// Region is one execution of a parallel region. Every node creates its
// regions in the same order (they run the same sequential code). A Region's
// methods must be called from one goroutine, in template order.
type Region struct {
	n     *node
	name  string
	seq   uint64
	state int
	// rank and size split the region's work: the node's, or 0 and 1 for
	// a nested region, which this node runs whole.
	rank, size int
	// nested is set when the region began while another one was running
	// on this node (a function with its own region called from a parallel
	// loop): as in OpenMP without nested parallelism, the node that
	// reaches it runs all its iterations and sections itself, sequentially,
	// with no communication and no monitor of its own. Its writes are
	// writes of the enclosing region, recorded by that region's monitor.
	nested *Region

	extent  int // arena bytes tracked in this region
	pages   int // dirty pages found by Create
	t0, t1  time.Time
	created time.Duration
	// Exchange's parts, for --stats: waiting for peers (the slowest node's
	// compute shows here), decoding + merging + injecting, encoding + sending.
	waited, merging, sent time.Duration

	values []value // reductions and lastprivates, in registration order

	// Dynamic schedules (master): chunk server state and the slaves'
	// messages it received that belong to Exchange.
	dyn *chunkServer
	// Dynamic schedules (slave): no more chunks.
	dynDone bool

	// --verify (master): the arena at Start, and the merged result while
	// the sequential re-run runs.
	entry, merged []byte
}

const (
	stBegun = iota
	stStarted
	stCreated
	stStopped
	stExchanged
)

// Begin describes the next parallel region; name identifies it in errors
// (the translator passes "file.go:line:col"). It does not arm anything.
//
// Called while another region runs on this node (between its Start and
// Stop, or in its --verify re-run), Begin returns a nested region: see
// Region. Nested regions do not count in the job's numbering, since nodes
// reach different numbers of them.
func Begin(name string) *Region {
	n := the()
	if outer := n.cur; outer != nil {
		return &Region{n: n, name: name, seq: outer.seq, size: 1, nested: outer}
	}
	n.seq++
	return &Region{n: n, name: name, seq: n.seq, rank: n.rank, size: n.size}
}

// label names the region in errors.
func (r *Region) label() string {
	if r.nested != nil {
		return fmt.Sprintf("region %s (nested in %s)", r.name, r.nested.label())
	}
	return fmt.Sprintf("region %s (#%d)", r.name, r.seq)
}

func (r *Region) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", r.label(), fmt.Sprintf(format, args...))
}

// fail adds the region's name to err.
func (r *Region) fail(err error) error {
	return fmt.Errorf("%s: %w", r.label(), err)
}

func (r *Region) wrap(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", r.label(), op, err)
}

// Start arms the monitor on the arena: from here until Create every write
// to the arena is recorded. Allocation in the arena is refused until End
// (Stop).
func (r *Region) Start() error {
	if r.state != stBegun {
		return r.errorf("Start called twice")
	}
	n := r.n
	if r.nested != nil {
		r.state = stStarted
		return nil
	}
	if n.cur != nil {
		// Begin was called before the enclosing region started.
		return r.errorf("started inside region %s, which began after it", n.cur.label())
	}
	// Sequential code since the last region may have stored pointers in
	// the arena.
	if err := checkPointers(n.arena.Bytes()); err != nil {
		return r.fail(err)
	}
	n.fault("start", r.seq)
	n.cur = r
	r.state = stStarted
	n.arena.Freeze(true)
	r.extent = n.arena.Used()
	if n.verify {
		r.entry = append([]byte(nil), n.arena.Bytes()[:r.extent]...)
	}
	if n.tracker != nil {
		if err := n.tracker.Start(r.extent); err != nil {
			return r.wrap("arm monitor", err)
		}
	}
	r.t0 = time.Now()
	return nil
}

// Static returns this node's contiguous block [lo, hi) of the iteration
// space [0, count) (schedule(static) without a chunk size): the blocks of
// consecutive ranks are consecutive and differ in length by at most one.
func (r *Region) Static(count int) (lo, hi int) {
	return block(count, r.rank, r.size)
}

func block(count, rank, size int) (lo, hi int) {
	if count <= 0 {
		return 0, 0
	}
	q, rem := count/size, count%size
	lo = rank*q + min(rank, rem)
	hi = lo + q
	if rank < rem {
		hi++
	}
	return lo, hi
}

// Chunks yields this node's chunks [lo, hi) of [0, count) in increasing
// order: static with chunk > 0 is block-cyclic by rank; dynamic and guided
// chunks are handed out by the master at run time (chunk ≤ 0 means 1 for
// dynamic and the minimum size for guided).
func (r *Region) Chunks(count int, sched Schedule, chunk int) iter.Seq2[int, int] {
	n := r.n
	if sched == Static || r.size == 1 {
		return func(yield func(int, int) bool) {
			if chunk <= 0 || r.size == 1 {
				if lo, hi := r.Static(count); lo < hi {
					yield(lo, hi)
				}
				return
			}
			for lo := r.rank * chunk; lo < count; lo += r.size * chunk {
				if !yield(lo, min(lo+chunk, count)) {
					return
				}
			}
		}
	}
	if chunk <= 0 {
		chunk = 1
	}
	if n.rank == 0 {
		r.serveChunks(count, sched, chunk)
		return func(yield func(int, int) bool) {
			for {
				lo, hi := r.dyn.next()
				if lo >= hi || !yield(lo, hi) {
					return
				}
			}
		}
	}
	return func(yield func(int, int) bool) {
		for !r.dynDone {
			lo, hi, err := r.requestChunk(count)
			if err != nil {
				fail(r.wrap("next chunk", err))
			}
			if lo >= hi {
				r.dynDone = true
				return
			}
			if !yield(lo, hi) {
				return
			}
		}
	}
}

// Sections yields the indices in [0, n) of the sections this node runs:
// round-robin by rank for Static, handed out by the master otherwise.
func (r *Region) Sections(count int, sched Schedule) iter.Seq[int] {
	chunk := 1
	return func(yield func(int) bool) {
		for lo, hi := range r.Chunks(count, sched, chunk) {
			for s := lo; s < hi; s++ {
				if !yield(s) {
					return
				}
			}
		}
	}
}

// Create disarms the monitor and returns what this node wrote in the arena
// since Start, as a delta; End (Stop) then leaves the region.
func (r *Region) Create() (*delta.Delta, error) {
	if r.state != stStarted {
		return nil, r.errorf("Create outside Start/Stop")
	}
	r.t1 = time.Now()
	r.state = stCreated
	n := r.n
	d := &delta.Delta{}
	if r.nested != nil {
		return d, nil
	}
	n.fault("create", r.seq)
	d.Reset(r.seq, n.rank)
	if n.tracker == nil {
		return d, nil
	}
	pages, err := n.tracker.Stop()
	if err != nil {
		return nil, r.wrap("collect written pages", err)
	}
	r.pages = len(pages)
	n.ckpt.create(d, n.arena.Bytes(), pages, n.tracker)
	r.created = time.Since(r.t1)
	return d, nil
}

// End leaves the region's parallel part on this node: allocation and
// freeing in the arena are allowed again, and regions begun from here on
// are no longer nested in it. It disarms nothing: Create did (collecting the
// written pages ends the recording); called without Create, End calls it
// and drops the delta.
func (r *Region) End() error {
	switch r.state {
	case stStarted:
		if _, err := r.Create(); err != nil {
			return err
		}
	case stCreated:
	default:
		return r.errorf("End (Stop) outside Start/Create")
	}
	r.state = stStopped
	if r.nested == nil {
		r.n.cur = nil
		r.n.arena.Freeze(false)
	}
	return nil
}

// Stop is End under the name of the template in DESIGN (start, create,
// stop), which generated code uses.
func (r *Region) Stop() error { return r.End() }

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
		if err = r.combineValues(nil); err == nil {
			err = r.checkPointers()
		}
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
	if err := r.combineValues(parts); err != nil {
		return 0, recvd, err
	}
	if err := merged.Apply(n.arena.Bytes()[:r.extent]); err != nil {
		return 0, recvd, r.wrap("merged delta", err)
	}
	if err := r.checkPointers(); err != nil {
		return 0, recvd, err
	}
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

// EndLast is called after Exchange of a region that is the program's last:
// on a slave it finalizes and exits with status 0, so that the sequential
// code after the last region runs on the master only.
func (r *Region) EndLast() {
	if r.nested == nil && r.n.rank != 0 {
		fail(ErrJobDone)
	}
}
