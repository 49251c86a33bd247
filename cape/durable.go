package cape

// The durable checkpoint log (cape run --checkpoint DIR, --restart): the
// master appends each region's merged result to a log (package ckptlog);
// a restarted job re-runs the program and, for every region the log holds,
// injects the logged result instead of computing. Every region boundary is
// a consistent cut (all arenas are equal there), so the log's intact prefix
// is always a valid recovery line.
//
// Restart, region by region: Begin marks the regions numbered up to the
// log's last (every node learns that number from the master when it joins,
// in a replay message); their Static and Chunks give this node no
// iterations; at Start the master checks the region's name, the arena's
// extent and a hash of the arena against the record (a mismatch means the
// program is not deterministic outside its regions, and the restart is
// refused naming the region); at Exchange the master, instead of merging,
// injects the logged delta and values and sends them to the slaves as the
// merged delta, which the slaves handle as in any region.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// durable is the master's checkpoint log state. It is used from the
// program's goroutine only.
type durable struct {
	dir *ckptlog.Dir
	w   *ckptlog.Writer // open until Finalize, even once logging stopped
	max int64           // --checkpoint-max, or 0: the default bound (bound)
	// auto is the default bound so far (no --checkpoint-max): it grows
	// with the arena's extent in use, never shrinks.
	auto int64
	// pointSeen: the program reached a checkpoint point; told: the notice
	// of a default bound without a point was printed.
	pointSeen, told bool

	rd      payloads        // restart, join: the log being replayed
	recBuf  []byte          // restart: the storage of the record being replayed
	entries []ckptlog.Entry // restart: the region records, by seq-first
	notice  func(string)    // prints a line on stderr
	first   uint64          // the first region number the log holds a record of
	logged  uint64          // regions logged (or replayed) so far
	hdr     ckptlog.Header  // this arena's header
	stopErr error           // why logging stopped for good, or nil
	peak    int64           // the log's size when a restart opened it
	chain   hashChain       // which region's entry hash is chained
	// joining is set while a node that arrived to join the job has not
	// been admitted (or refused): points then compact the log only at the
	// bound, so that the node can catch up with the log (set from the
	// transport's accepting goroutine).
	joining atomic.Bool
	// Replay (restart, join): the hash of the arena right after region
	// exitSeq was injected (or the image of its point restored), for a
	// record whose entry hash is chainedHash.
	exitHash, exitSeq uint64
	// Time spent on the log (for --stats): hashing the arena at entry
	// (mostly while the master waits for the slaves), encoding and
	// queueing records (on the program's goroutine).
	hashing, encoding time.Duration
	hashWait          time.Duration // of hashing: the time the program waited for it
	// Points (durable_point_unsafe.go): the size of the last image (kept free
	// beside the log so that a compaction never passes the bound), logging
	// suspended at the bound until the next point, an image too large for
	// the bound (reported once), compactions done, and a restart's image.
	image       int64
	suspended   bool
	tooBig      bool
	compactions int
	pending     *pendingImage
}

// arenaHash is the hash of the arena's extent recorded at each region's
// entry: a hash of each page (see pageHash), combined in page order. Pages
// the system reports never populated (see unpopulated) are zero and take a
// precomputed hash without being read: reading them would fault in the zero
// page, which costs tens of microseconds a page in a virtual machine. twins,
// if not nil, gives the entry content of the pages written since (their
// twins, in increasing page order), which are read there instead. A
// program that differs outside its regions between the logged run and the
// restart goes unnoticed in a region with probability about 2^-64.
func arenaHash(mem []byte, pageSize int, written []int, twins [][]byte) uint64 {
	return arenaHashZero(mem, pageSize, written, twins, unpopulated(mem, pageSize))
}

// arenaHashZero is arenaHash with the unpopulated pages given (zero[p]:
// page p was never populated at the region's entry, so its entry content
// is zero, written since or not). It never returns chainedHash.
func arenaHashZero(mem []byte, pageSize int, written []int, twins [][]byte, zero []bool) uint64 {
	var zh uint64
	if zero != nil {
		zh = pageHash(make([]byte, pageSize))
	}
	h := uint64(len(mem))
	for p := 0; p*pageSize < len(mem); p++ {
		var ph uint64
		twin := []byte(nil)
		if len(written) > 0 && written[0] == p {
			twin = twins[0]
			written, twins = written[1:], twins[1:]
		}
		switch {
		case zero != nil && zero[p]:
			ph = zh
		case twin != nil:
			ph = pageHash(twin)
		default:
			ph = pageHash(mem[p*pageSize : min(len(mem), (p+1)*pageSize)])
		}
		h = bits.RotateLeft64(h^ph*hashM2, 27)*hashM1 + hashM4
	}
	if h == chainedHash {
		h = 1
	}
	return h
}

// chainedHash is the entry hash a record holds when its region's entry is
// the arena as the previous region left it: the stretch between them was
// clean (the translator proved, and the runtime confirms, that nothing but
// the injection of the previous region's merged delta wrote the arena
// since: Hint.Clean), so the live master hashes nothing. A stencil's
// regions are all such. A replay checks the claim instead of a hash: the
// arena at the region's entry must hash as it did right after the previous
// region was injected (or the image restored), so sequential code that
// wrote the arena in the restarted run is refused as any other difference.
const chainedHash = 0

// hashChain says which region, if its stretch is clean, enters the arena
// as the last region the master ended left it. Used from the program's
// goroutine.
type hashChain struct {
	next   uint64 // that region (0: none)
	extent int    // and its extent
}

// serves reports whether region seq, of extent bytes, whose stretch is
// clean or not, takes chainedHash.
func (c *hashChain) serves(seq uint64, extent int, clean bool) bool {
	return clean && c.next == seq && c.extent == extent
}

// ended records that region seq, of extent bytes, ended on the master.
func (c *hashChain) ended(seq uint64, extent int) { c.next, c.extent = seq+1, extent }

const (
	hashM1 = 0x9E3779B97F4A7C15
	hashM2 = 0xC2B2AE3D27D4EB4F
	hashM3 = 0x165667B19E3779F9
	hashM4 = 0x27D4EB2F165667C5
)

// pageHash hashes b with four independent multiply-rotate lanes over 8-byte
// words (the stripe loop of xxHash64, not its exact output): about as fast
// as memory reads.
func pageHash(b []byte) uint64 {
	le := binary.LittleEndian
	h1, h2, h3, h4 := uint64(1), uint64(2), uint64(3), uint64(4)
	for len(b) >= 32 {
		h1 = bits.RotateLeft64(h1+le.Uint64(b)*hashM2, 31) * hashM1
		h2 = bits.RotateLeft64(h2+le.Uint64(b[8:])*hashM2, 31) * hashM1
		h3 = bits.RotateLeft64(h3+le.Uint64(b[16:])*hashM2, 31) * hashM1
		h4 = bits.RotateLeft64(h4+le.Uint64(b[24:])*hashM2, 31) * hashM1
		b = b[32:]
	}
	h := bits.RotateLeft64(h1, 1) + bits.RotateLeft64(h2, 7) + bits.RotateLeft64(h3, 12) + bits.RotateLeft64(h4, 18)
	for _, c := range b {
		h = bits.RotateLeft64(h^uint64(c)*hashM3, 11) * hashM4
	}
	return h
}

// The default bound on the checkpoint directory's bytes, without
// --checkpoint-max: defaultBoundFactor times the arena's extent in use (the
// most seen so far), and at least defaultBoundMin. Four extents leave room
// for an image beside the log while it is replaced, and for records worth
// about two images between compactions (compactAt).
const (
	defaultBoundFactor = 4
	defaultBoundMin    = 64 << 20
)

// bound returns the bound on the directory's bytes for an arena extent in
// use: --checkpoint-max, or the default bound.
func (d *durable) bound(extent int) int64 {
	if d.max > 0 {
		return d.max
	}
	d.auto = max(d.auto, defaultBoundMin, defaultBoundFactor*int64(extent))
	return d.auto
}

// boundName names the bound in notices.
func (d *durable) boundName() string {
	if d.max > 0 {
		return fmt.Sprintf("--checkpoint-max %d", d.max)
	}
	return fmt.Sprintf("the default bound of %d bytes (%d times the arena in use, at least %d MiB; set it with --checkpoint-max)",
		d.auto, defaultBoundFactor, defaultBoundMin>>20)
}

// tellBound prints, at the first region logged, how a default bound will be
// held when the program has not reached a checkpoint point: without one the
// log cannot be compacted (an image needs the live variables a point
// names), so logging stops at the bound and a restart replays the logged
// prefix, then computes the rest.
func (d *durable) tellBound(extent int) {
	if d.told {
		return
	}
	d.told = true
	if d.max > 0 || d.pointSeen {
		return
	}
	d.notice(fmt.Sprintf("the log is bounded to %d bytes (%d times the arena in use, at least %d MiB; set it with --checkpoint-max); the program has reached no //cape:checkpoint point, where the log is compacted: if it reaches none, logging stops at the bound, and a restart replays the regions logged, then computes the rest",
		d.bound(extent), defaultBoundFactor, defaultBoundMin>>20))
}

// recordLimit bounds a record's payload: a delta of the whole arena, its
// run table, the values and small fields.
func (n *node) recordLimit() int64 { return 2*int64(n.arena.Size()) + 1<<20 }

// initDurable opens the checkpoint log on the master (creating it, or
// scanning it for a restart) and, on a single node, the monitor the log's
// deltas need.
func (n *node) initDurable() error {
	cfg := n.cfg
	if n.rank != 0 || (cfg.Checkpoint == "" && !cfg.Restart) {
		return nil
	}
	if cfg.Checkpoint == "" {
		return errors.New("restart: no checkpoint directory given (cape run --checkpoint DIR --restart)")
	}
	dir, err := ckptlog.OpenDir(cfg.Checkpoint)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	d := &durable{dir: dir, max: cfg.CheckpointMax, notice: func(s string) { notice("cape: checkpoint: %s\n", s) },
		hdr: ckptlog.Header{ArenaBase: uint64(n.arena.Addr()), ArenaSize: uint64(n.arena.Size()), PageSize: uint32(n.arena.PageSize())}}
	s, err := dir.Scan(n.recordLimit())
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	switch {
	case s.End > 0 && !cfg.Restart:
		return fmt.Errorf("checkpoint: %s already holds the log of a run: add --restart to continue from it, or remove %s",
			dir.Path(), ckptlog.LogName)
	case s.End == 0:
		if cfg.Restart {
			d.notice(fmt.Sprintf("%s holds no log: the job starts from the beginning", dir.Path()))
		}
		d.w, err = dir.Create(d.hdr)
	default:
		err = d.openReplay(s)
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	n.dur = d
	n.replayTo, n.pending = d.logged, d.pending
	if n.size == 1 && n.tracker == nil {
		return n.singleTracker()
	}
	return nil
}

// payloads reads a scanned log's records: a ckptlog.Reader on restart, a
// ckptlog.Follower on a joining node.
type payloads interface {
	PayloadInto(buf []byte, e ckptlog.Entry) ([]byte, error)
	Close() error
}

// openReplay prepares the replay of a scanned log and opens it for
// appending after its intact prefix.
func (d *durable) openReplay(s *ckptlog.Scan) error {
	rd, err := d.dir.OpenReader()
	if err != nil {
		return err
	}
	if err := d.loadReplay(s, rd, "restart"); err != nil {
		return err
	}
	d.w, err = d.dir.Append(s.End)
	d.peak = s.End
	return err
}

// loadReplay prepares the replay of a scanned log read through rd (by a
// restart or a joining node, as op says): its regions, and the image it
// starts with, if any.
func (d *durable) loadReplay(s *ckptlog.Scan, rd payloads, op string) error {
	if s.Header.ArenaBase != d.hdr.ArenaBase || s.Header.PageSize != d.hdr.PageSize || s.Header.ArenaSize > d.hdr.ArenaSize {
		return fmt.Errorf("the log was written with an arena at %#x of %d bytes (pages of %d), this job's is at %#x of %d bytes (pages of %d)",
			s.Header.ArenaBase, s.Header.ArenaSize, s.Header.PageSize, d.hdr.ArenaBase, d.hdr.ArenaSize, d.hdr.PageSize)
	}
	if s.Size > s.End {
		d.notice(fmt.Sprintf("dropped a torn tail of %d bytes after region #%d (%s)", s.Size-s.End, s.Last(), s.Why))
	}
	d.rd = rd
	d.entries, d.first, d.logged = s.Entries, 1, s.Last()
	if len(s.Entries) > 0 && s.Entries[0].Kind == ckptlog.KindImage {
		p, err := d.rd.PayloadInto(nil, s.Entries[0])
		if err != nil {
			return err
		}
		im, err := ckptlog.ParseImage(p)
		if err != nil {
			return fmt.Errorf("the log's image: %w", err)
		}
		d.pending = &pendingImage{point: im.Point, seq: im.Seq, image: im}
		d.entries, d.first = s.Entries[1:], im.Seq+1
		then := "; no region after it is logged"
		if s.Last() > im.Seq {
			then = fmt.Sprintf(", then replaying regions #%d to #%d", im.Seq+1, s.Last())
		}
		d.notice(fmt.Sprintf("%s: restoring the image of point %s (after region #%d) from %s%s", op, im.Point, im.Seq, d.dir.Path(), then))
	} else if s.Last() == 0 {
		d.notice(fmt.Sprintf("%s: %s logs no region yet: the job starts from the beginning", op, d.dir.Path()))
	} else {
		d.notice(fmt.Sprintf("%s: replaying regions #1 to #%d from %s", op, s.Last(), d.dir.Path()))
	}
	return nil
}

// singleTracker gives a single node checkpointing a job the monitor a
// multi-node job has, so that its regions have deltas to log.
func (n *node) singleTracker() error {
	backend := orDefault(n.cfg.Monitor, "auto")
	var err error
	n.tracker, err = monitor.New(backend, n.arena.Bytes(), monitor.Options{PageSize: n.arena.PageSize(),
		Notice: func(s string) { notice("cape: %s\n", s) }})
	if err != nil {
		return fmt.Errorf("monitor %q: %w", backend, err)
	}
	n.ckpt = incremental{}
	return nil
}

// announceReplay tells the slaves of a restarted job how many regions the
// master replays (the master's half of the replay message).
func (n *node) announceReplay() error {
	if !n.cfg.Restart {
		return nil
	}
	p := wire.ReplayPayload(n.replayPlan())
	if err := n.master.Broadcast(transport.Message{Kind: kindReplay, Payload: p}); err != nil {
		return fmt.Errorf("restart: tell the slaves the regions to replay: %w", err)
	}
	return nil
}

// awaitReplay receives the master's replay message (a slave of a
// restarted job).
func (n *node) awaitReplay() error {
	if !n.cfg.Restart {
		return nil
	}
	msg, err := n.slave.Recv()
	if err == nil {
		err = fromMaster(msg, kindReplay, 0)
	}
	var plan wire.ReplayPlan
	if err == nil {
		plan, err = wire.ParseReplay(msg.Payload)
	}
	if err == nil {
		n.replayTo = plan.Regions
		n.setPending(plan)
	}
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}

// closeDurable writes what is queued, syncs and closes the log.
func (n *node) closeDurable() error {
	d := n.dur
	if d == nil {
		return nil
	}
	if d.rd != nil {
		_ = d.rd.Close() // read-only
	}
	if d.w != nil {
		// A log that could not be written is reported, not the job's
		// failure: the computation is unaffected, and the log's intact
		// prefix stays a valid recovery line.
		if err := d.w.Close(); err != nil && d.stopErr == nil {
			d.notice(fmt.Sprintf("%v: the log keeps a prefix of the regions", err))
		}
		if n.stats {
			size, peak, syncs, synced := d.w.Stats()
			statsf("cape: checkpoint: %d regions logged, %d compactions, %d bytes on disk (peak %d); hashing %v (the program waited %v of it), encoding %v; in the writer: %d fdatasync calls taking %v, %d records superseded by a compaction before they were written\n",
				d.logged, d.compactions, size, max(peak, d.peak), d.hashing.Round(time.Microsecond), d.hashWait.Round(time.Microsecond), d.encoding.Round(time.Microsecond), syncs, synced.Round(time.Microsecond), d.w.Superseded())
		}
	}
	return nil
}

// durableStart records, on a checkpointing master, the hash of the arena
// at the region's entry, and checks a replayed region against its record.
func (r *Region) durableStart() error {
	d := r.n.dur
	if d == nil {
		return nil
	}
	if !r.replay || r.n.pending != nil {
		// Hashed by hashEntry, while the master waits for the slaves;
		// which pages are still unpopulated is only known now (and not
		// needed when the region's entry hash is chained).
		r.zero = nil
		if !d.chain.serves(r.seq, r.extent, r.hint().Clean) {
			r.zero = unpopulated(r.n.arena.Bytes()[:r.extent], r.n.arena.PageSize())
		}
		return nil
	}
	t := time.Now()
	r.hash = arenaHash(r.n.arena.Bytes()[:r.extent], r.n.arena.PageSize(), nil, nil)
	d.hashing += time.Since(t)
	rec, err := d.record(r.seq)
	if err != nil {
		return r.wrap("restart: read the log", err)
	}
	switch {
	case rec.Name != r.name:
		return r.errorf("restart: the log's region #%d is %s: the program, or its arguments, changed since the log was written", r.seq, rec.Name)
	case rec.Extent != uint64(r.extent) || !d.entryMatches(rec, r.hash):
		if rec.EntryHash == chainedHash {
			rec.EntryHash = d.exitHash // the arena as the previous region left it
		}
		return r.errorf("restart: the arena at the region's entry differs from the logged run's (%d bytes, hash %016x; logged %d bytes, hash %016x): the program is not deterministic outside its parallel regions (it reads the clock, random numbers, the environment or input that changed), so its log cannot be replayed",
			r.extent, r.hash, rec.Extent, rec.EntryHash)
	}
	md := &delta.Delta{Region: r.seq, Node: delta.Merged, Runs: make([]delta.Run, len(rec.Runs))}
	for i, run := range rec.Runs {
		md.Runs[i] = delta.Run{Off: run.Off, Data: run.Data}
	}
	if err := checkCounts(rec, md); err != nil {
		return r.wrap("restart: the log's record", err)
	}
	r.rec, r.recDelta = rec, md
	return nil
}

// hashEntry starts hashing, on a checkpointing master, the arena as it was
// at the region's entry: the pages the master wrote are read from their
// twins, the others from the arena, which nothing writes until the merged
// delta is injected (awaitHash). It runs while the master waits for the
// slaves' deltas and merges them. pages are the pages Create found written.
func (r *Region) hashEntry(pages []int) {
	d := r.n.dur
	if d == nil || r.replay || r.nested != nil {
		return
	}
	if d.chain.serves(r.seq, r.extent, r.clean) {
		r.hash = chainedHash
		return
	}
	tr := r.n.tracker
	twins := make([][]byte, len(pages))
	for i, p := range pages {
		twins[i] = tr.Twin(p) // valid until the next Start
	}
	written := append([]int(nil), pages...)
	mem, ps := r.n.arena.Bytes()[:r.extent], r.n.arena.PageSize()
	r.hashed = make(chan struct{})
	go func() {
		defer close(r.hashed)
		t := time.Now()
		r.hash = arenaHashZero(mem, ps, written, twins, r.zero)
		r.hashTime = time.Since(t)
	}()
}

// awaitHash waits for hashEntry: before anything writes the arena.
func (r *Region) awaitHash() {
	if r.hashed != nil {
		t := time.Now()
		<-r.hashed
		r.hashed = nil
		r.n.dur.hashWait += time.Since(t)
		r.n.dur.hashing += r.hashTime
	}
}

// entryMatches reports whether a replayed region's record agrees with
// hash, the arena's at the region's entry: the hash it logged, or, for a
// chained record (chainedHash), the arena's right after the previous
// region's injection (or the restore of the image it follows).
func (d *durable) entryMatches(rec *ckptlog.Region, hash uint64) bool {
	if rec.EntryHash != chainedHash {
		return rec.EntryHash == hash
	}
	return d.exitSeq != 0 && d.exitSeq+1 == rec.Seq && d.exitHash == hash
}

// exited records, on a replay, the arena mem as region seq left it (its
// logged delta injected, or the image that follows it restored), for the
// next record if its entry hash is chained (entryMatches).
func (d *durable) exited(mem []byte, pageSize int, seq uint64) {
	d.exitHash, d.exitSeq = arenaHash(mem, pageSize, nil, nil), seq
}

// checkCounts checks a record's consistency counts (seed 000's
// sent/received rule, at CAPE's cut): every node of the logged job sent its
// message and received its merged one, and the merged delta holds no more
// data than the nodes' deltas carried (nothing is recorded as received that
// no node sent).
func checkCounts(rec *ckptlog.Region, md *delta.Delta) error {
	var data uint64
	for rank, c := range rec.Nodes {
		data += c.Data
		if rank > 0 && (c.Sent == 0 || c.Recvd == 0) {
			return fmt.Errorf("consistency counts: node %d sent %d bytes and received %d", rank, c.Sent, c.Recvd)
		}
	}
	if uint64(md.Len()) > data {
		return fmt.Errorf("consistency counts: a merged delta of %d bytes from %d bytes the nodes sent", md.Len(), data)
	}
	return nil
}

// record reads and parses the record of region seq.
func (d *durable) record(seq uint64) (*ckptlog.Region, error) {
	if seq < d.first || seq-d.first >= uint64(len(d.entries)) {
		return nil, fmt.Errorf("no record of region #%d", seq)
	}
	// The previous record's storage is free: its region has ended.
	p, err := d.rd.PayloadInto(d.recBuf, d.entries[seq-d.first])
	if err != nil {
		return nil, err
	}
	d.recBuf = p
	return ckptlog.ParseRegion(p)
}

// injectLogged injects a replayed region's logged values and delta on the
// master (or a single node).
func (r *Region) injectLogged() error {
	if err := r.setValues(r.rec.Values); err != nil {
		return err
	}
	r.n.dirtyGap()
	if err := r.recDelta.Apply(r.n.arena.Bytes()[:r.extent]); err != nil {
		return r.wrap("restart: logged delta", err)
	}
	d := r.n.dur
	d.exited(r.n.arena.Bytes()[:r.extent], r.n.arena.PageSize(), r.seq)
	d.logged = r.seq
	return r.checkPointers()
}

// exchangeSingle is Exchange on a single node: the values take their
// sequential results (or the logged ones), and a checkpointing node logs
// its delta.
func (r *Region) exchangeSingle(d *delta.Delta) error {
	if r.replay {
		return r.injectLogged()
	}
	r.awaitHash()
	if err := r.combineValues(nil); err != nil {
		return err
	}
	if err := r.checkPointers(); err != nil {
		return err
	}
	err := r.logRegion(d, []*delta.Delta{d}, nil, 0)
	if r.n.master != nil {
		// A master left alone may be joined again.
		r.n.announceLive(r.seq)
	}
	return err
}

// replayMaster is the master's Exchange in a replayed region: the slaves'
// messages (deltas of no iterations) are dropped, and the logged result is
// injected and sent as the merged delta.
func (r *Region) replayMaster(msgs []transport.Message) (sent, recvd int, err error) {
	n := r.n
	for rank := 1; rank < n.size; rank++ {
		recvd += len(msgs[rank].Payload)
	}
	if err := r.injectLogged(); err != nil {
		return 0, recvd, err
	}
	out := n.ckpt.outgoing(r.recDelta, n.arena.Bytes()[:r.extent])
	buf, err := r.envelope(out, r.results())
	if err != nil {
		return 0, recvd, err
	}
	if err := n.master.Broadcast(transport.Message{Kind: kindMerged, Seq: r.seq, Payload: buf}); err != nil {
		return 0, recvd, r.fail(err)
	}
	for rank := 1; rank < n.size; rank++ {
		n.master.Release(rank, msgs[rank].Payload)
	}
	return len(buf) * (n.size - 1), recvd, nil
}

// logRegion appends the region's record: merged is what the master
// injected (its runs may alias the payloads: the record is copied, or
// written, before logRegion returns), ds the nodes' deltas (by rank), msgs
// the slaves' messages and sent the bytes the master sent them in all
// (each slave's share in n.xch.sent, or an equal share of a broadcast). Logging stops,
// with a notice, when the log cannot be written or would pass the bound;
// the log written so far stays a valid prefix.
func (r *Region) logRegion(merged *delta.Delta, ds []*delta.Delta, msgs []transport.Message, sent int) error {
	d := r.n.dur
	if d == nil {
		return nil
	}
	r.awaitHash()
	d.chain.ended(r.seq, r.extent)
	if d.stopErr != nil || d.suspended || r.n.pending != nil {
		return nil
	}
	d.tellBound(r.extent)
	t := time.Now()
	defer func() { d.encoding += time.Since(t) }()
	// The counts of the nodes whose delta was committed: the master, then
	// the slaves not lost in the region (their units' re-execution is in
	// the master's delta).
	ranks := []int{0}
	if msgs != nil {
		ranks = append(ranks, r.committed...)
	}
	rec := &ckptlog.Region{Seq: r.seq, Name: r.name, EntryHash: r.hash, Extent: uint64(r.extent),
		Nodes: make([]ckptlog.Counts, len(ranks)), Values: r.logged()}
	for i, rank := range ranks {
		rec.Nodes[i].Data = uint64(ds[rank].Len())
		if rank > 0 {
			recvd := r.n.xch.sent[rank]
			switch {
			case r.n.lazyM != nil && !r.last:
				// The lazy transfer's message: write notices, the
				// pages pushed and the values (sendLazy).
				recvd = r.n.lazyM.Sent(rank)
			case r.n.ckpt.broadcastAll():
				recvd = sent / (len(ranks) - 1)
			}
			rec.Nodes[i].Sent, rec.Nodes[i].Recvd = uint64(len(msgs[rank].Payload)), uint64(recvd)
		}
	}
	rec.Runs = make([]ckptlog.Run, len(merged.Runs))
	for i, run := range merged.Runs {
		rec.Runs[i] = ckptlog.Run{Off: run.Off, Data: run.Data}
	}
	if size := ckptlog.RecordSize(rec); d.w.Size()+size+d.image > d.bound(r.extent) {
		if d.image > 0 {
			// A point was seen: it will compact the log.
			d.suspended = true
			return nil
		}
		d.stop(fmt.Errorf("the next record (region %s #%d, %d bytes) would pass %s, and the program has no checkpoint point to compact the log at", r.name, r.seq, size, d.boundName()))
		return nil
	}
	if err := d.w.AppendRegion(rec); err != nil {
		d.stop(err)
		return nil
	}
	d.logged = r.seq
	return nil
}

// joinerArrived is called, from the transport's accepting goroutine, when
// a node arrives to join the job: it follows the log, so the writer holds
// no record back from now on, and points postpone compactions until it is
// admitted.
func (d *durable) joinerArrived() {
	d.joining.Store(true)
	if d.w != nil {
		d.w.NoHold()
	}
}

// stop ends logging: the log keeps the regions logged so far (the writer
// stays open until Finalize, which writes what is queued).
func (d *durable) stop(why error) {
	if d.stopErr != nil {
		return
	}
	d.stopErr = why
	d.notice(fmt.Sprintf("%v; the log keeps regions up to #%d (%d bytes): a restart replays those and computes the rest",
		why, d.logged, d.w.Size()))
}
