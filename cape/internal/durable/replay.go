package durable

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/ckptlog"
)

// Replay reads the record of region seq, which this run replays, and
// checks it against the region as this run reached it: its name, and mem,
// the arena's extent at the region's entry, which must hash as the logged
// run's did (or, for a chained record, as the arena the previous region
// left: Injected, Restored). It then checks the record's consistency
// counts (CheckCounts) and returns the record and its merged delta, whose
// runs alias storage that the next Replay reuses. A region that differs
// from the logged one is an error matching ErrDiverged.
func (d *Log) Replay(seq uint64, name string, mem []byte, pageSize int) (*ckptlog.Region, *delta.Delta, error) {
	t := time.Now()
	hash := ArenaHash(mem, pageSize, nil, nil)
	d.hashing += time.Since(t)
	rec, err := d.record(seq)
	if err != nil {
		return nil, nil, fmt.Errorf("read the log: %w", err)
	}
	switch {
	case rec.Name != name:
		return nil, nil, divergedf("the log's region #%d is %s: the program, or its arguments, changed since the log was written", seq, rec.Name)
	case rec.Extent != uint64(len(mem)) || !d.entryMatches(rec, hash):
		logged := rec.EntryHash
		if logged == ChainedHash {
			logged = d.exitHash // the arena as the previous region left it
		}
		return nil, nil, divergedf("the arena at the region's entry differs from the logged run's (%d bytes, hash %016x; logged %d bytes, hash %016x): the log is another program's, or was written with other arguments or input, or the program is not deterministic outside its parallel regions (it reads the clock, random numbers or the environment), so its log cannot be replayed",
			len(mem), hash, rec.Extent, logged)
	}
	md := &delta.Delta{Region: seq, Node: delta.Merged, Runs: make([]delta.Run, len(rec.Runs))}
	for i, run := range rec.Runs {
		md.Runs[i] = delta.Run{Off: run.Off, Data: run.Data}
	}
	if err := CheckCounts(rec, md); err != nil {
		return nil, nil, fmt.Errorf("the log's record: %w", err)
	}
	return rec, md, nil
}

// record reads and parses the record of region seq.
func (d *Log) record(seq uint64) (*ckptlog.Region, error) {
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

// entryMatches reports whether a replayed region's record agrees with
// hash, the arena's at the region's entry: the hash it logged, or, for a
// chained record (ChainedHash), the arena's right after the previous
// region's injection (or the restore of the image it follows).
func (d *Log) entryMatches(rec *ckptlog.Region, hash uint64) bool {
	if rec.EntryHash != ChainedHash {
		return rec.EntryHash == hash
	}
	return d.exitSeq != 0 && d.exitSeq+1 == rec.Seq && d.exitHash == hash
}

// Injected records that replayed region seq's logged delta was injected:
// mem is the arena's extent it left.
func (d *Log) Injected(seq uint64, mem []byte, pageSize int) {
	d.exited(mem, pageSize, seq)
	d.logged = seq
}

// Restored records that the pending image, of the arena after region seq,
// was restored: mem is the arena's extent in use.
func (d *Log) Restored(seq uint64, mem []byte, pageSize int) {
	d.logged = seq
	d.pending = nil
	d.exited(mem, pageSize, seq)
}

// exited records, on a replay, the arena mem as region seq left it, for
// the next record if its entry hash is chained (entryMatches).
func (d *Log) exited(mem []byte, pageSize int, seq uint64) {
	d.exitHash, d.exitSeq = ArenaHash(mem, pageSize, nil, nil), seq
}

// CheckCounts checks a record's consistency counts (seed 000's
// sent/received rule, at CAPE's cut): every node of the logged job sent its
// message and received its merged one, and md, the record's merged delta,
// holds no more data than the nodes' deltas carried (nothing is recorded as
// received that no node sent).
func CheckCounts(rec *ckptlog.Region, md *delta.Delta) error {
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
