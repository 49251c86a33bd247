package cape

// Checkpoint points: bounded storage for the durable log (the policy is
// package durable's: image.go there). A restart from a log that starts with
// an image computes the regions before the first time the program reaches
// the image's point, restores the image there on every node, and replays
// the records after it.

import (
	"bytes"
	"fmt"

	"github.com/cape-go/cape/cape/internal/allocs"
	"github.com/cape-go/cape/cape/internal/durable"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/transport"
)

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
	if err := n.checkAbandoned(); err != nil {
		fail(err)
	}
	if n.dur == nil && n.pending == nil {
		return
	}
	if n.cur != nil {
		fail(fmt.Errorf("checkpoint point %s: inside region %s", name, n.cur.label()))
	}
	raw, err := allocs.VarBytes(vars, n.arena.Addr(), n.arena.Addr()+uintptr(n.arena.Size()))
	if err != nil {
		fail(fmt.Errorf("checkpoint point %s: %w", name, err))
	}
	if n.dur != nil {
		if err := n.started(); err != nil {
			fail(fmt.Errorf("restart: point %s: %w", name, err))
		}
		n.dur.SawPoint() // the log can be compacted here
	}
	if p := n.pending; p != nil {
		if p.Point == name {
			Must(n.restore(name, vars, raw))
		}
		return
	}
	if n.rank != 0 {
		return
	}
	if n.dur.ImagesOnly() {
		if !n.dur.ImageDue() {
			return
		}
		// The master fetches every page it lacks from its holder first:
		// the image must not depend on the copy below being a user-mode
		// access, which faults a page in (a write(2) from the arena
		// would not, with a user-mode-only userfaultfd).
		n.homes.pullAll(n.arena.Bytes(), n.arena.Used())
	}
	n.dur.Point(name, n.seq, pointArena{n.arena}, raw)
}

// imagesOnly turns the master's checkpoint log, if any, into an
// images-only log once the job runs with distributed homes: the master
// does not hold the bytes the slaves write, only its images do
// (durable's images.go).
func (n *node) imagesOnly() {
	if n.dur == nil {
		return
	}
	when := "at every //cape:checkpoint point"
	if every := n.dur.SetImagesOnly(n.cfg.CheckpointEvery); every > 0 {
		when = fmt.Sprintf("at a //cape:checkpoint point at most every %v (and 10 times the last image's cost)", every)
	}
	notice("cape: checkpoint: under distributed homes the master does not hold the regions' bytes: the log holds an image of the arena taken %s, and no region records; a restart resumes from the last image, or from the start without one\n", when)
}

// restore restores the pending image at its point: the master checks it
// fits this run (the same allocator state, the same variables), sends it to
// the slaves and injects it; a slave receives and injects it. The job's
// region count becomes the image's.
func (n *node) restore(name string, live []any, vars [][]byte) error {
	p := n.pending
	var im *ckptlog.Image
	if n.rank == 0 || n.joining != nil { // a joining node reads the image from the log, as the master does
		im = p.Image
		if n.master != nil && n.size > 1 {
			msg := wire.AppendImage(nil, wire.ImageMsg{Seq: im.Seq, Alloc: im.Alloc, Table: im.Table, Vars: im.Vars, Memory: im.Memory})
			if err := n.master.Broadcast(transport.Message{Kind: wire.Image, Seq: n.seq, Payload: msg}); err != nil {
				return fmt.Errorf("restart: point %s: send the image: %w", name, err)
			}
		}
	} else {
		msg, err := n.slave.Recv()
		if err == nil {
			err = fromMaster(msg, wire.Image, n.seq)
		}
		if err != nil {
			return fmt.Errorf("restart: point %s: %w", name, err)
		}
		m, err := wire.ParseImage(msg.Payload, durable.VarsLen(vars))
		if err != nil {
			return fmt.Errorf("restart: %w", err)
		}
		im = &ckptlog.Image{Seq: m.Seq, Alloc: m.Alloc, Table: m.Table, Vars: m.Vars, Memory: m.Memory} // aliases the message

	}
	return n.restoreImage(name, im, live, vars)
}

// restoreImage writes an image's memory and variables (live points to
// them, vars are their bytes), once the image is checked against the arena
// and the variables, and checks the pointers the arena's allocations then
// hold (durable.Restore). Where the program allocated differently before
// reaching the point than the saved run had when it saved the image (other
// blocks, or other types or places at the same blocks), the image's
// allocations are adopted first (adoptAllocations).
func (n *node) restoreImage(name string, im *ckptlog.Image, live []any, vars [][]byte) error {
	n.gap.Dirty()
	l, check := n.layout(), allocTable.CheckPointers
	var adopted []*allocs.Allocation
	if !durable.SameAllocations(im, n.arena.AppendState(nil)) || !bytes.Equal(im.Table, allocTable.AppendEntries(nil)) {
		all, err := adoptAllocations(n.arena, im.Alloc, im.Table)
		if err != nil {
			return fmt.Errorf("restart: point %s: %w", name, err)
		}
		tab := &allocs.Table{}
		tab.Replace(all)
		l = durable.Layout{Base: n.arena.Addr(), Used: n.arena.Used(), Allocs: tab}
		check, adopted = tab.CheckPointers, all
	}
	if err := durable.Restore(im, varTypes(live), vars, n.arena.Bytes(), l, check); err != nil {
		return fmt.Errorf("restart: point %s: %w", name, err)
	}
	if adopted != nil {
		allocTable.Replace(adopted)
	}
	n.seq = im.Seq
	n.pending = nil
	if d := n.dur; d != nil {
		d.Restored(im.Seq, n.arena.Bytes()[:n.arena.Used()], n.arena.PageSize())
	}
	return nil
}
