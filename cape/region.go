package cape

import (
	"fmt"
	"iter"
	"time"

	"github.com/cape-go/cape/cape/internal/durable"
	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/values"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/monitor"
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

	extent int       // arena bytes tracked in this region
	t0     time.Time // the compute's start (Start's end)

	values values.List // reductions and lastprivates, in registration order

	hints regionHints // what the translator proved (hint_unsafe.go)
	// updates: the translator saw the region's loop update shared
	// elements at indices it could not prove distinct per iteration
	// (Updates): the merge makes two nodes' writes of one byte a
	// conflict even where their values agree.
	updates bool
	// marks: the places the iterations marked (MarkWrites), or nil.
	marks *writeMarks

	count  int               // the iterations of the region's loop (first)
	roster regionRoster      // master of a multi-node region
	units  roster.SlaveUnits // slave of a multi-node region

	stats  *regionStats  // --stats (statslog.go), or nil
	verify *regionVerify // --verify (verify.go, master), or nil
	dlog   *regionLog    // durable log or restart (durable.go), or nil

	// output: what this node's units printed on standard output, as
	// encoded segments (output.go), from Create to Exchange.
	output []byte
	// printed (master): the output of every node's units in iteration
	// order, as written by Exchange, for the durable log.
	printed []byte
	// ran: the units this node started in this region while capturing
	// its output, in the order it ran them (the current one last).
	ran []roster.Unit
	// gid: the goroutine that began the region, with GoroutineRegions.
	gid uint64
}

// regionRoster is the master's bookkeeping of a multi-node region: who
// runs which units, the slaves' deltas, the units of lost slaves
// (reexec.go).
type regionRoster struct {
	ro *rosterDriver
	// committed are the slaves whose delta was committed in this region,
	// by rank (set by gather).
	committed []int
}

// regionLog is a region's part in the durable log (durable.go): on a
// checkpointing master, the arena's hash at Start; when the region is
// replayed from the log (restart), its record and logged delta.
type regionLog struct {
	replay   bool
	hash     uint64
	hashing  *durable.Hashing // started by hashEntry, or nil
	zero     []bool           // pages unpopulated at Start (see durable.Unpopulated)
	rec      *ckptlog.Region
	recDelta *delta.Delta
}

// replaying reports whether the region is replayed from the log: its
// result is injected, not computed.
func (r *Region) replaying() bool { return r.dlog != nil && r.dlog.replay }

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
	if err := n.checkAbandoned(); err != nil {
		fail(err)
	}
	if outer := n.cur; outer != nil {
		return &Region{n: n, name: name, seq: outer.seq, size: 1, nested: outer}
	}
	n.seq++
	if n.joining != nil {
		n.catchUp() // a node joining the running job (join_node.go)
	}
	rank, size := n.split()
	r := &Region{n: n, name: name, seq: n.seq, rank: rank, size: size}
	if n.goRegions {
		r.gid = goroutineID()
	}
	if replay := n.seq <= n.replayTo && n.pending == nil; replay || n.dur != nil && !n.dur.ImagesOnly() {
		r.dlog = &regionLog{replay: replay}
	}
	return r
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
	if err := allocTable.CheckPointers(n.arena.Bytes()); err != nil {
		return r.fail(err)
	}
	n.fault("start", r.seq)
	var ts time.Time // Start's own time, for --stats only
	if n.plan.Stats {
		ts = time.Now()
	}
	n.cur = r
	r.state = stStarted
	n.arena.Freeze(true)
	r.extent = n.arena.Used()
	if n.plan.Stats {
		r.stats = &regionStats{}
	}
	if n.plan.Verify {
		r.verify = &regionVerify{entry: append([]byte(nil), n.arena.Bytes()[:r.extent]...)}
	}
	h := r.hint()
	if err := r.durableStart(h.Clean); err != nil {
		return err
	}
	if n.tracker != nil {
		if ht, ok := n.tracker.(monitor.Hinter); ok {
			ht.SetHint(h)
		}
		if err := n.tracker.Start(r.extent); err != nil {
			return r.wrap("arm monitor", err)
		}
	}
	if r.captures() {
		if err := n.out.Begin(); err != nil {
			return r.fail(err)
		}
	}
	r.startFaults()
	r.t0 = time.Now()
	if r.stats != nil {
		r.stats.starting = r.t0.Sub(ts)
	}
	r.hints.clean = h.Clean
	return nil
}

// Static returns this node's contiguous block [lo, hi) of the iteration
// space [0, count) (schedule(static) without a chunk size): the blocks of
// consecutive ranks are consecutive and differ in length by at most one.
func (r *Region) Static(count int) (lo, hi int) {
	if r.replaying() {
		return 0, 0 // restart: the log holds the region's result
	}
	return roster.Block(count, r.rank, r.size)
}

// Chunks yields this node's chunks [lo, hi) of [0, count): static with
// chunk ≤ 0 is its block (see Static), static with chunk > 0 is
// block-cyclic by rank; dynamic and guided chunks are handed out by the
// master at run time (chunk ≤ 0 means 1 for dynamic and the minimum size
// for guided). On the master, the chunks of slaves lost in the region
// follow its own (see First).
func (r *Region) Chunks(count int, sched Schedule, chunk int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for u, ok := r.markUnit(r.first(count, sched, chunk)); ok; u, ok = r.markUnit(r.next()) {
			if !yield(u.Lo, u.Hi) {
				return
			}
		}
	}
}

// First and Next run a static loop (schedule(static) without a chunk
// size) of count iterations: First returns this node's block [lo, hi) and
// more = true, Next the further units this node must run, until more is
// false. Generated code writes
//
//	for lo, hi, more := r.First(count); more; lo, hi, more = r.Next() {
//		for k := lo; k < hi; k++ { ... }
//	}
//
// On a slave the block is the only unit. On the master, once its block is
// done, Next waits for the slaves and returns the blocks of those lost in
// the region, which the master re-executes (see reexec.go).
func (r *Region) First(count int) (lo, hi int, more bool) {
	u, ok := r.markUnit(r.first(count, Static, 0))
	return u.Lo, u.Hi, ok
}

// Next returns the next unit after First; see First.
func (r *Region) Next() (lo, hi int, more bool) {
	u, ok := r.markUnit(r.next())
	return u.Lo, u.Hi, ok
}

// first starts a loop over this node's units and returns the first one.
// A static block is returned even when empty, so that First's loop runs
// once on every node.
func (r *Region) first(count int, sched Schedule, chunk int) (roster.Unit, bool) {
	r.count = max(count, 0)
	if r.replaying() {
		// Restart: the log holds the region's result; one empty unit.
		r.units.Clear()
		return roster.Unit{Lo: r.count, Hi: r.count}, true
	}
	if chunk <= 0 && sched != Static {
		chunk = 1
	}
	if r.size == 1 {
		lo, hi := r.Static(count)
		r.units.Clear()
		return roster.Unit{Lo: lo, Hi: hi}, true
	}
	if r.n.rank == 0 {
		if r.roster.ro != nil {
			fail(r.errorf("more than one loop or sections construct in one region"))
		}
		r.roster.ro = r.newRoster(count, sched, chunk, true)
		if sched == Static && chunk <= 0 && r.roster.ro.ownLeft() == 0 {
			return roster.Unit{Lo: r.count, Hi: r.count}, true // an empty block
		}
		return r.next()
	}
	if sched != Static {
		r.units.Dynamic()
	} else if none := r.units.Static(count, chunk, r.rank, r.size); none && chunk <= 0 {
		return roster.Unit{Lo: r.count, Hi: r.count}, true
	}
	return r.next()
}

// next returns this node's next unit.
func (r *Region) next() (roster.Unit, bool) {
	if r.roster.ro != nil {
		return r.roster.ro.next()
	}
	u, ok, err := r.units.Next(r.requestChunk)
	if err != nil {
		fail(r.wrap("next chunk", err))
	}
	return u, ok
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
// since Start, as a delta; End (Stop) then leaves the region. The delta's
// storage is the node's, reused by the next region: it is valid until the
// next Create.
func (r *Region) Create() (*delta.Delta, error) {
	if r.state != stStarted {
		return nil, r.errorf("Create outside Start/Stop")
	}
	if r.stats != nil {
		r.stats.t1 = time.Now()
	}
	r.state = stCreated
	n := r.n
	if r.nested != nil {
		return &delta.Delta{}, nil
	}
	r.endFaults()
	n.computeDone(r.seq)
	n.fault("create", r.seq)
	if r.captures() {
		var err error
		if r.output, err = n.out.End(n.rank == 0); err != nil {
			return nil, r.fail(err)
		}
	}
	d := &n.xch.own // reused: valid until the next region's Create
	d.Reset(r.seq, n.rank)
	if n.tracker == nil {
		return d, nil
	}
	pages, err := n.tracker.Stop()
	if err != nil {
		return nil, r.wrap("collect written pages", err)
	}
	r.hashEntry(pages)
	if n.homes != nil {
		r.createHomes(d, pages)
	} else {
		n.ckpt.Create(d, n.arena.Bytes(), pages, n.tracker)
	}
	if r.stats != nil {
		r.stats.pages, r.stats.created = len(pages), time.Since(r.stats.t1)
	}
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
		r.ended()
		r.n.cur = nil
		r.n.arena.Freeze(false)
	}
	return nil
}

// Stop is End under the name of the template in DESIGN (start, create,
// stop), which generated code uses.
func (r *Region) Stop() error { return r.End() }

// RegionsDone is called where no parallel region can run any more: after
// the outermost loop of main that holds its last regions (a proof of the
// translator). On a slave it keeps serving the pages the node holds until
// the master's program ends, then exits with status 0, so that the
// sequential code that follows (typically the output of the whole result)
// runs on the master only and no slave fetches what only that code reads.
// Every node releases what only regions use (regionsDone); the master then
// goes on with the program. Outside a job it does nothing.
func RegionsDone() {
	n := the()
	if n.cur != nil || n.finished {
		return
	}
	n.endRegions()
}

// EndLast is called after Exchange of a region that is the program's last:
// on a slave it finalizes and exits with status 0, so that the sequential
// code after the last region runs on the master only.
func (r *Region) EndLast() {
	if r.nested != nil {
		return
	}
	r.n.endRegions()
}
