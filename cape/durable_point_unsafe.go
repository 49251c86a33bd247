package cape

// Checkpoint points: bounded storage for the durable log. At a point the
// live state of the program is the arena plus the variables it names, so
// the master may replace the whole log with an image of them (compaction):
// every record before it is then useless (seed 002's useless checkpoints).
// A restart from a log that starts with an image computes the regions
// before the first time the program reaches the image's point, restores
// the image there on every node, and replays the records after it.

import (
	"bytes"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/transport"
)

// compactAt is the fraction of the room left beside an image at which a
// point compacts the log (seed 002 starts discarding at 70 %).
const compactAt = 0.7

// Checkpoint marks a point of the program, outside any region, where its
// live state is the arena and the variables vars points to (a time loop's
// counter and the slices it swaps, say): name identifies the point ("file.go:
// line:col"; the translator emits the call for a //cape:checkpoint
// directive). Each variable must be a pointer to a value without pointers,
// or whose pointers point into the arena (slices made by Make).
//
// With a checkpoint log (bounded by --checkpoint-max or by default), the
// master compacts the log here when it nears the bound: it replaces the log by an image of the arena and the
// variables. On restart from such a log, the first call with the image's
// name restores the arena and the variables on every node and the job
// continues from there. Without a checkpoint log it does nothing.
func Checkpoint(name string, vars ...any) {
	n := the()
	if n.dur == nil && n.pending == nil {
		return
	}
	if n.cur != nil {
		fail(fmt.Errorf("checkpoint point %s: inside region %s", name, n.cur.label()))
	}
	raw, err := varBytes(n, vars)
	if err != nil {
		fail(fmt.Errorf("checkpoint point %s: %w", name, err))
	}
	if n.dur != nil {
		n.dur.pointSeen = true // the log can be compacted here
	}
	if p := n.pending; p != nil {
		if p.point == name {
			Must(n.restore(name, vars, raw))
		}
		return
	}
	if n.rank == 0 {
		n.dur.point(n, name, raw)
	}
}

// varBytes returns the bytes of the variables vars point to, checking that
// any pointers in them point into the arena.
func varBytes(n *node, vars []any) ([][]byte, error) {
	out := make([][]byte, len(vars))
	for i, v := range vars {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Pointer || rv.IsNil() {
			return nil, fmt.Errorf("variable %d: want a non-nil pointer, got %T", i+1, v)
		}
		t := rv.Type().Elem()
		b := unsafe.Slice((*byte)(rv.UnsafePointer()), t.Size())
		words, err := pointerWords(t)
		if err != nil {
			return nil, fmt.Errorf("variable %d (%s): %w", i+1, t, err)
		}
		lo, hi := n.arena.Addr(), n.arena.Addr()+uintptr(n.arena.Size())
		for _, w := range words {
			p := *(*uintptr)(unsafe.Pointer(&b[w.off]))
			if p != 0 && (p < lo || p > hi) {
				return nil, fmt.Errorf("variable %d (%s): %s points outside the arena", i+1, t, w.path)
			}
		}
		out[i] = b
	}
	return out, nil
}

// varsLen is the bytes of a point's variables (varBytes) together.
func varsLen(vars [][]byte) int {
	n := 0
	for _, v := range vars {
		n += len(v)
	}
	return n
}

// pendingImage is a restart's image, restored at the first call of its
// point: the master holds the image; a slave only the point's name.
type pendingImage struct {
	point string
	seq   uint64
	image *ckptlog.Image // master
}

// point is a checkpoint point on a checkpointing master: it compacts the
// log into an image when the log nears the bound, or when logging was
// suspended at the bound.
func (d *durable) point(n *node, name string, vars [][]byte) {
	if d.stopErr != nil {
		return
	}
	extent := n.arena.Used()
	bound := d.bound(extent)
	imgSize := int64(extent) + int64(len(name)) + 256 + int64(varsLen(vars))
	d.image = imgSize
	size := d.w.Size()
	if !d.suspended && (float64(size) < compactAt*float64(bound-imgSize) || d.joining.Load()) {
		return // not near the bound yet, or a joining node catches up: at the bound
	}
	if size+imgSize > bound {
		if !d.tooBig {
			d.notice(fmt.Sprintf("point %s: the log (%d bytes) and an image (%d bytes) would pass %s: no compaction", name, size, imgSize, d.boundName()))
			d.tooBig = true
		}
		return
	}
	im := &ckptlog.Image{Seq: n.seq, Point: name, Alloc: n.arena.AppendState(nil),
		Vars: bytes.Join(vars, nil), Memory: n.arena.Bytes()[:extent]}
	hdr := ckptlog.AppendHeader(ckptlog.Frame(ckptlog.KindHeader, 20), d.hdr)
	frame := ckptlog.AppendImage(ckptlog.Frame(ckptlog.KindImage, int(imgSize)), im)
	if err := d.w.Replace(hdr, frame); err != nil {
		d.stop(err)
		return
	}
	d.suspended, d.compactions = false, d.compactions+1
}

// replayPlan is what the replay message tells the slaves: the regions
// replayed and, when the log has an image, the point at which a restarted
// job restores it (and the regions it covers).
func (n *node) replayPlan() wire.ReplayPlan {
	r := wire.ReplayPlan{Regions: n.replayTo}
	if p := n.pending; p != nil {
		r.HasImage, r.ImageSeq, r.Point = true, p.seq, p.point
	}
	return r
}

func (n *node) setPending(r wire.ReplayPlan) {
	if r.HasImage {
		n.pending = &pendingImage{seq: r.ImageSeq, point: r.Point}
	}
}

// restore restores the pending image at its point: the master checks it
// fits this run (the same allocator state, the same variables), sends it to
// the slaves and injects it; a slave receives and injects it. The job's
// region count becomes the image's.
func (n *node) restore(name string, live []any, vars [][]byte) error {
	p := n.pending
	var im *ckptlog.Image
	if n.rank == 0 || n.joining != nil { // a joining node reads the image from the log, as the master does
		im = p.image
		if !bytes.Equal(im.Alloc, n.arena.AppendState(nil)) {
			return fmt.Errorf("restart: point %s: the arena's allocations differ from those of the logged run when it saved its image there (the program allocates differently each time it reaches the point), so the image cannot be restored", name)
		}
		if n.master != nil && n.size > 1 {
			msg := wire.ImagePayload(im.Seq, im.Vars, im.Memory)
			if err := n.master.Broadcast(transport.Message{Kind: kindImage, Seq: n.seq, Payload: msg}); err != nil {
				return fmt.Errorf("restart: point %s: send the image: %w", name, err)
			}
		}
	} else {
		msg, err := n.slave.Recv()
		if err == nil {
			err = fromMaster(msg, kindImage, n.seq)
		}
		if err != nil {
			return fmt.Errorf("restart: point %s: %w", name, err)
		}
		im = new(ckptlog.Image)
		if im.Seq, im.Vars, im.Memory, err = wire.ParseImage(msg.Payload, varsLen(vars)); err != nil {
			return fmt.Errorf("restart: %w", err)
		}
	}
	return n.restoreImage(name, im, live, vars)
}

// restoreImage writes an image's memory and variables (live points to
// them, vars are their bytes), once their pointers are checked
// (checkRestored), and checks the pointers the arena's allocations then
// hold (checkPointers, as at the end of every region).
func (n *node) restoreImage(name string, im *ckptlog.Image, live []any, vars [][]byte) error {
	if nv := varsLen(vars); nv != len(im.Vars) {
		return fmt.Errorf("restart: point %s: the image holds %d bytes of variables, the point names %d", name, len(im.Vars), nv)
	}
	if len(im.Memory) != n.arena.Used() {
		return fmt.Errorf("restart: point %s: the image holds %d bytes of arena, %d are in use", name, len(im.Memory), n.arena.Used())
	}
	if err := checkRestored(n, live, im.Vars); err != nil {
		return fmt.Errorf("restart: point %s: %w", name, err)
	}
	n.dirtyGap()
	copy(n.arena.Bytes(), im.Memory)
	if err := checkPointers(n.arena.Bytes()); err != nil {
		return fmt.Errorf("restart: point %s: the image's arena: %w", name, err)
	}
	rest := im.Vars
	for _, v := range vars {
		copy(v, rest[:len(v)])
		rest = rest[len(v):]
	}
	n.seq = im.Seq
	n.pending = nil
	if d := n.dur; d != nil {
		d.logged = im.Seq
		d.exited(n.arena.Bytes()[:n.arena.Used()], n.arena.PageSize(), im.Seq)
	}
	return nil
}
