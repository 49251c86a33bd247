package durable

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/ckptlog"
)

// The default bound on the checkpoint directory's bytes, without
// --checkpoint-max: DefaultBoundFactor times the arena's extent in use (the
// most seen so far), and at least DefaultBoundMin. Four extents leave room
// for an image beside the log while it is replaced, and for records worth
// about two images between compactions (CompactAt).
const (
	DefaultBoundFactor = 4
	DefaultBoundMin    = 64 << 20
)

// Bound returns the bound on the directory's bytes for an arena extent in
// use: --checkpoint-max, or the default bound, which never shrinks.
func (d *Log) Bound(extent int) int64 {
	if d.max > 0 {
		return d.max
	}
	d.auto = max(d.auto, DefaultBoundMin, DefaultBoundFactor*int64(extent))
	return d.auto
}

// boundName names the bound in notices.
func (d *Log) boundName() string {
	if d.max > 0 {
		return fmt.Sprintf("--checkpoint-max %d", d.max)
	}
	return fmt.Sprintf("the default bound of %d bytes (%d times the arena in use, at least %d MiB; set it with --checkpoint-max)",
		d.auto, DefaultBoundFactor, DefaultBoundMin>>20)
}

// tellBound tells, at the first region logged, how a default bound will be
// held when the program has not reached a checkpoint point: without one the
// log cannot be compacted (an image needs the live variables a point
// names), so logging stops at the bound and a restart replays the logged
// prefix, then computes the rest.
func (d *Log) tellBound(extent int) {
	if d.told {
		return
	}
	d.told = true
	if d.max > 0 || d.pointSeen {
		return
	}
	d.notice(fmt.Sprintf("the log is bounded to %d bytes (%d times the arena in use, at least %d MiB; set it with --checkpoint-max); the program has reached no //cape:checkpoint point, where the log is compacted: if it reaches none, logging stops at the bound, and a restart replays the regions logged, then computes the rest",
		d.Bound(extent), DefaultBoundFactor, DefaultBoundMin>>20))
}

// Chained reports whether region seq, of extent bytes, whose stretch since
// the previous region is clean or not, enters the arena as the region the
// master last ended (Append) left it: its record then holds ChainedHash,
// and nothing is hashed.
func (d *Log) Chained(seq uint64, extent int, clean bool) bool {
	return d.chain.serves(seq, extent, clean)
}

// Append logs region seq, of extent bytes, which ended on the master: the
// record build returns (its runs may alias memory that changes once Append
// returns: the record is copied, or written, before). build is called only
// when the region is logged: not once logging stopped (the log cannot be
// written, or would pass the bound without a checkpoint point to compact it
// at: both told once), while it is suspended at the bound until the next
// point, nor before a restart's pending image is restored; never on a
// joining node (OpenJoin). The log written so far always stays a valid
// prefix.
func (d *Log) Append(seq uint64, extent int, build func() *ckptlog.Region) {
	d.chain.ended(seq, extent)
	if d.w == nil || d.stopErr != nil || d.suspended || d.pending != nil {
		return
	}
	d.tellBound(extent)
	t := time.Now()
	defer func() { d.encoding += time.Since(t) }()
	rec := build()
	if size := ckptlog.RecordSize(rec); d.w.Size()+size+d.image > d.Bound(extent) {
		if d.image > 0 {
			// A point was seen: it will compact the log.
			d.suspended = true
			return
		}
		d.stop(fmt.Errorf("the next record (region %s #%d, %d bytes) would pass %s, and the program has no checkpoint point to compact the log at", rec.Name, rec.Seq, size, d.boundName()))
		return
	}
	if err := d.w.AppendRegion(rec); err != nil {
		d.stop(err)
		return
	}
	d.logged = seq
}

// Runs returns the runs of a merged delta as a record holds them (they
// alias md's data).
func Runs(md *delta.Delta) []ckptlog.Run {
	runs := make([]ckptlog.Run, len(md.Runs))
	for i, run := range md.Runs {
		runs[i] = ckptlog.Run{Off: run.Off, Data: run.Data}
	}
	return runs
}
