package cape

// The runtime's glue to the durable checkpoint log (cape run --checkpoint
// DIR, --restart), whose policy is package durable's: the master appends
// each region's merged result; a restarted job re-runs the program and,
// for every region the log holds, injects the logged result instead of
// computing.
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
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/cape-go/cape/cape/internal/durable"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/transport"
)

// recordLimit bounds a record's payload (durable.RecordLimit).
func (n *node) recordLimit() int64 { return durable.RecordLimit(n.arena.Size()) }

// arenaHeader is the log's header of this node's arena.
func (n *node) arenaHeader() ckptlog.Header {
	h := ckptlog.Header{ArenaBase: uint64(n.arena.Addr()), ArenaSize: uint64(n.arena.Size()), PageSize: uint32(n.arena.PageSize())}
	if d, err := hex.DecodeString(programDigest); err == nil && len(d) == len(h.Program) {
		copy(h.Program[:], d)
	}
	h.Args = argsDigest(os.Args[1:])
	return h
}

// argsDigest is the digest of a program's arguments that its checkpoint
// log records: a restart with other arguments is refused.
func argsDigest(args []string) [32]byte {
	h := sha256.New()
	for _, a := range args {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(a)))
		h.Write(n[:])
		h.Write([]byte(a))
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

// started gives the checkpoint log the arena's hash where the program
// first reaches a region or a checkpoint point, before anything but
// sequential code ran, so that every node holds all of it
// (durable.Log.Started). A joining node's log is the master's.
func (n *node) started() error {
	if n.dur == nil || n.joining != nil {
		return nil
	}
	return n.dur.Started(func() uint64 {
		return durable.ArenaHash(n.arena.Bytes()[:n.arena.Used()], n.arena.PageSize(), nil, nil)
	})
}

// programDigest is the hex digest of the program's translated source, set
// by cape build (go build -ldflags -X): a restart refuses a log another
// build of the program wrote.
var programDigest string

// initDurable opens the checkpoint log on the master (creating it, or
// scanning it for a restart); a single node's monitor for the log's deltas
// is its plan's (setup.Plan.Tracker).
func (n *node) initDurable() error {
	cfg := n.cfg
	if n.rank != 0 || (cfg.Checkpoint == "" && !cfg.Restart) {
		return nil
	}
	if cfg.Checkpoint == "" {
		return errors.New("restart: no checkpoint directory given (cape run --checkpoint DIR --restart)")
	}
	d, err := durable.Open(durable.Config{Dir: cfg.Checkpoint, Restart: cfg.Restart, Max: cfg.CheckpointMax,
		Header: n.arenaHeader(), Notice: func(s string) { notice("cape: checkpoint: %s\n", s) }})
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	n.dur = d
	n.replayTo, n.pending = d.Logged(), d.Pending()
	return nil
}

// announceReplay tells the slaves of a restarted job how many regions the
// master replays (the master's half of the replay message).
func (n *node) announceReplay() error {
	if !n.cfg.Restart {
		return nil
	}
	p := durable.AppendReplay(nil, n.replayTo, n.pending)
	if err := n.master.Broadcast(transport.Message{Kind: wire.Replay, Payload: p}); err != nil {
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
		err = fromMaster(msg, wire.Replay, 0)
	}
	if err == nil {
		n.replayTo, n.pending, err = durable.ParseReplay(msg.Payload)
	}
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}

// closeDurable writes what is queued, syncs and closes the log.
func (n *node) closeDurable() error {
	if n.dur == nil {
		return nil
	}
	if st, ok := n.dur.Close(); ok && n.plan.Stats {
		statsOut.Printf("cape: checkpoint: %s\n", st)
	}
	return nil
}

// durableStart records, on a checkpointing master, which pages of the
// arena are unpopulated at the region's entry (for hashEntry), and checks a
// replayed region against its record; clean is the Start's hint.
func (r *Region) durableStart(clean bool) error {
	d := r.n.dur
	if err := r.n.started(); err != nil {
		return r.wrap("restart", err)
	}
	if d == nil || d.ImagesOnly() {
		return nil
	}
	mem, ps := r.n.arena.Bytes()[:r.extent], r.n.arena.PageSize()
	if !r.replaying() || r.n.pending != nil {
		// Hashed by hashEntry, while the master waits for the slaves;
		// which pages are still unpopulated is only known now (and not
		// needed when the region's entry hash is chained).
		r.dlog.zero = nil
		if !d.Chained(r.seq, r.extent, clean) {
			r.dlog.zero = durable.Unpopulated(mem, ps)
		}
		return nil
	}
	rec, md, err := d.Replay(r.seq, r.name, mem, ps)
	if err != nil {
		return r.wrap("restart", err)
	}
	r.dlog.rec, r.dlog.recDelta = rec, md
	return nil
}

// hashEntry starts hashing, on a checkpointing master, the arena as it was
// at the region's entry: the pages the master wrote are read from their
// twins, the others from the arena, which nothing writes until the merged
// delta is injected (awaitHash). It runs while the master waits for the
// slaves' deltas and merges them. pages are the pages Create found written.
func (r *Region) hashEntry(pages []int) {
	d := r.n.dur
	if d == nil || d.ImagesOnly() || r.replaying() || r.nested != nil {
		return
	}
	if d.Chained(r.seq, r.extent, r.hints.clean) {
		r.dlog.hash = durable.ChainedHash
		return
	}
	// The tracker's twins are valid until the next Start.
	r.dlog.hashing = durable.StartHash(r.n.arena.Bytes()[:r.extent], r.n.arena.PageSize(), pages, r.n.tracker.Twin, r.dlog.zero)
}

// awaitHash waits for hashEntry: before anything writes the arena.
func (r *Region) awaitHash() {
	if l := r.dlog; l != nil && l.hashing != nil {
		l.hash = r.n.dur.Await(l.hashing)
		l.hashing = nil
	}
}

// injectLogged injects a replayed region's logged values and delta on the
// master (or a single node).
func (r *Region) injectLogged() error {
	if err := r.setValues(r.dlog.rec.Values); err != nil {
		return err
	}
	r.n.gap.Dirty()
	if err := r.dlog.recDelta.Apply(r.n.arena.Bytes()[:r.extent]); err != nil {
		return r.wrap("restart: logged delta", err)
	}
	r.n.dur.Injected(r.seq, r.n.arena.Bytes()[:r.extent], r.n.arena.PageSize())
	return r.checkPointers()
}

// exchangeSingle is Exchange on a single node: the values take their
// sequential results (or the logged ones), and a checkpointing node logs
// its delta.
func (r *Region) exchangeSingle(d *delta.Delta) error {
	if r.replaying() {
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
	out := n.ckpt.Outgoing(r.dlog.recDelta, n.arena.Bytes()[:r.extent])
	buf, err := r.envelope(out, r.results())
	if err != nil {
		return 0, recvd, err
	}
	if err := n.master.Broadcast(transport.Message{Kind: wire.Merged, Seq: r.seq, Payload: buf}); err != nil {
		return 0, recvd, r.fail(err)
	}
	for rank := 1; rank < n.size; rank++ {
		n.master.Release(rank, msgs[rank].Payload)
	}
	return len(buf) * (n.size - 1), recvd, nil
}

// logRegion appends the region's record (durable.Log.Append): merged is
// what the master injected (its runs may alias the payloads: the record is
// copied, or written, before logRegion returns), ds the nodes' deltas (by
// rank), msgs the slaves' messages and sent the bytes the master sent them
// in all (each slave's share in n.xch.sent, or an equal share of a
// broadcast). A log that cannot be written, or would pass its bound, is a
// notice, not an error.
func (r *Region) logRegion(merged *delta.Delta, ds []*delta.Delta, msgs []transport.Message, sent int) error {
	d := r.n.dur
	if d == nil {
		return nil
	}
	r.awaitHash()
	d.Append(r.seq, r.extent, func() *ckptlog.Region { return r.record(merged, ds, msgs, sent) })
	return nil
}

// record is the region's record for the log (see logRegion).
func (r *Region) record(merged *delta.Delta, ds []*delta.Delta, msgs []transport.Message, sent int) *ckptlog.Region {
	// The counts of the nodes whose delta was committed: the master, then
	// the slaves not lost in the region (their units' re-execution is in
	// the master's delta).
	ranks := []int{0}
	if msgs != nil {
		ranks = append(ranks, r.roster.committed...)
	}
	rec := &ckptlog.Region{Seq: r.seq, Name: r.name, EntryHash: r.dlog.hash, Extent: uint64(r.extent),
		Nodes: make([]ckptlog.Counts, len(ranks)), Values: r.logged(), Runs: durable.Runs(merged)}
	for i, rank := range ranks {
		rec.Nodes[i].Data = uint64(ds[rank].Len())
		if rank > 0 {
			recvd := r.n.xch.sent[rank]
			switch {
			case r.n.lazyM != nil && !r.hints.last:
				// The lazy transfer's message: write notices, the
				// pages pushed and the values (sendLazy).
				recvd = r.n.lazyM.Sent(rank)
			case r.n.ckpt.BroadcastAll():
				recvd = sent / (len(ranks) - 1)
			}
			rec.Nodes[i].Sent, rec.Nodes[i].Recvd = uint64(len(msgs[rank].Payload)), uint64(recvd)
		}
	}
	return rec
}
