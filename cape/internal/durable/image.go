package durable

// Checkpoint points: bounded storage for the log. At a point the live state
// of the program is the arena plus the variables it names, so the master
// may replace the whole log with an image of them (compaction): every
// record before it is then useless (seed 002's useless checkpoints). A
// restart from a log that starts with an image computes the regions before
// the first time the program reaches the image's point, restores the image
// there on every node, and replays the records after it.

import (
	"bytes"
	"fmt"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/ckptlog"
)

// CompactAt is the fraction of the room left beside an image at which a
// point compacts the log (seed 002 starts discarding at 70 %).
const CompactAt = 0.7

// Arena is what a compaction reads of the arena.
type Arena interface {
	Used() int                     // the bytes in use from the start
	Bytes() []byte                 // the whole arena
	AppendState(dst []byte) []byte // the allocator's state
	AppendTable(dst []byte) []byte // the live allocations' types and places
}

// Pending is a restart's image, restored at the first call of its point:
// the master (and a joining node) holds the image; a slave only the
// point's name and the regions it covers.
type Pending struct {
	Point string
	Seq   uint64         // the regions the image covers
	Image *ckptlog.Image // master, joining node
}

// ReadImage reads the image of log entry e as a pending image.
func ReadImage(rd interface {
	PayloadInto(buf []byte, e ckptlog.Entry) ([]byte, error)
}, e ckptlog.Entry) (*Pending, error) {
	p, err := rd.PayloadInto(nil, e)
	if err != nil {
		return nil, err
	}
	im, err := ckptlog.ParseImage(p)
	if err != nil {
		return nil, fmt.Errorf("the log's image: %w", err)
	}
	return &Pending{Point: im.Point, Seq: im.Seq, Image: im}, nil
}

// SawPoint records that the program reached a checkpoint point: the log
// can be compacted.
func (d *Log) SawPoint() { d.pointSeen = true }

// Point is checkpoint point name on a checkpointing master, after region
// seq, whose variables' bytes are vars: it compacts the log into an image
// of a and vars when the log nears the bound, or when logging was
// suspended at the bound. A compaction that fails stops logging.
func (d *Log) Point(name string, seq uint64, a Arena, vars [][]byte) {
	if d.w == nil || d.stopErr != nil { // a joining node's log, or stopped
		return
	}
	if d.images.on {
		d.pointImage(name, seq, a, vars)
		return
	}
	extent := a.Used()
	bound := d.Bound(extent)
	imgSize := int64(extent) + int64(len(name)) + 256 + int64(VarsLen(vars))
	d.image = imgSize
	size := d.w.Size()
	if !d.suspended && (float64(size) < CompactAt*float64(bound-imgSize) || d.joining.Load()) {
		return // not near the bound yet, or a joining node catches up: at the bound
	}
	if size+imgSize > bound {
		if !d.tooBig {
			d.notice(fmt.Sprintf("point %s: the log (%d bytes) and an image (%d bytes) would pass %s: no compaction", name, size, imgSize, d.boundName()))
			d.tooBig = true
		}
		return
	}
	if d.writeImage(name, seq, a, vars, imgSize) {
		d.suspended = false
	}
}

// writeImage replaces the log by an image of the first extent bytes of a
// and vars, of imgSize bytes, at point name after region seq, and reports
// whether it did; a log that cannot be written stops.
func (d *Log) writeImage(name string, seq uint64, a Arena, vars [][]byte, imgSize int64) bool {
	im := &ckptlog.Image{Seq: seq, Point: name, Alloc: a.AppendState(nil), Table: a.AppendTable(nil),
		Vars: bytes.Join(vars, nil), Memory: a.Bytes()[:a.Used()]}
	imgSize += int64(len(im.Alloc) + len(im.Table))
	hdr := ckptlog.AppendHeader(ckptlog.Frame(ckptlog.KindHeader, ckptlog.HeaderSize), d.hdr)
	frame := ckptlog.AppendImage(ckptlog.Frame(ckptlog.KindImage, int(imgSize)), im)
	if err := d.w.Replace(hdr, frame); err != nil {
		d.stop(err)
		return false
	}
	d.compactions++
	return true
}

// VarsLen is the bytes of a point's variables together.
func VarsLen(vars [][]byte) int {
	n := 0
	for _, v := range vars {
		n += len(v)
	}
	return n
}

// AppendReplay appends to dst the replay message the master of a
// restarted job sends every slave (wire.AppendReplay): the regions it
// replays (1..replayTo) and, when the log starts with an image (p not nil),
// the regions the image covers and the point at which it is restored.
func AppendReplay(dst []byte, replayTo uint64, p *Pending) []byte {
	r := wire.ReplayPlan{Regions: replayTo}
	if p != nil {
		r.HasImage, r.ImageSeq, r.Point = true, p.Seq, p.Point
	}
	return wire.AppendReplay(dst, r)
}

// ParseReplay parses a replay message (AppendReplay): the regions replayed,
// and the slave's pending image, or nil.
func ParseReplay(p []byte) (replayTo uint64, pending *Pending, err error) {
	r, err := wire.ParseReplay(p)
	if err != nil {
		return 0, nil, err
	}
	if r.HasImage {
		pending = &Pending{Seq: r.ImageSeq, Point: r.Point}
	}
	return r.Regions, pending, nil
}

// SameAllocations reports whether image im was taken with the arena's
// allocator in state alloc (its encoding): the arena's allocations at the
// point are then those of the run that saved it.
func SameAllocations(im *ckptlog.Image, alloc []byte) bool { return bytes.Equal(im.Alloc, alloc) }
