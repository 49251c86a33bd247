//go:build linux

package monitor

import (
	"fmt"
	"slices"

	"github.com/cape-go/cape/internal/pagemem"
	"golang.org/x/sys/unix"
)

// Twins that follow writes (Lazy.TwinWritesOnly, distributed homes). A
// node that reads the twins of the pages its regions wrote only needs no
// twin of a page no region of it writes. On such a tracker, before a
// region whose writes are bounded, mixed Starts leave out the twins of
// the chunks the bounds do not meet:
//
//   - A Start that grows the extent before a bounded region (the
//     program's first region: every array the sequential code filled) is
//     mixed whatever the costs say, and takes no twin of the new whole
//     chunks outside the bounds (dropNew): they are dropped.
//   - A dropped chunk is hot and stale: never compared nor cooled. The
//     first mixed Start whose region may write it (its bounds meet it, or
//     it is not bounded) copies its pages in memory into its twins
//     (fillDropped); a Start of another kind fills every dropped chunk
//     first, since those kinds copy, compare or arm the whole extent as if
//     every twin were current.
//   - A chunk whose twins a mixed Start took this way (u.taken) and
//     whose region did not write it, on this node, is dropped again at the
//     Stop, its twin pages released (releaseUnwritten): the other nodes'
//     share of an array, which another node's write will invalidate here
//     anyway. Once only: the next time it is filled, its twins are kept
//     (chunk.again), so that a chunk in the bounds that no region writes
//     costs one copy, not one per region.
//
// The twins of invalidated pages are released too (lazy_linux.go). So a
// node holds twins for its own share of the arrays its regions write, the
// peak being the first region of each array, whose bounds cover the whole
// array.

// dropNew takes the twins of the pages [old, np) that a grown extent
// adds (copyNew), except, on a writes-only tracker before a region whose
// writes h bounds, those of the whole chunks the bounds do not meet, whose
// twins were never written (past twinned): those are dropped. The new
// chunks' twins are then current, but for the dropped ones; a chunk the
// old extent ended in is not, unless refreshHot compared it. The whole
// new chunks the bounds meet are taken.
func (u *uffdTracker) dropNew(h Hint, old, np int) {
	synced := uint32(u.starts + 1)
	first := (old + chunkPages - 1) / chunkPages
	fresh := (u.twinned + u.pageSize - 1) / u.pageSize
	whole := func(c int) bool {
		return u.writesOnly && h.Bounded && c*chunkPages >= max(old, fresh) && (c+1)*chunkPages <= np
	}
	lo := old
	for c := first; c < len(u.chunks); c++ {
		ch := &u.chunks[c]
		ch.synced = synced
		switch {
		case !whole(c):
			continue
		case ch.cmp:
			u.taken = append(u.taken, c)
			continue
		}
		ch.synced, ch.dropped = 0, true
		u.copyNew(lo, c*chunkPages) // not timed: populates the twins
		lo = (c + 1) * chunkPages
	}
	u.copyNew(min(lo, np), np)
}

// fillDropped takes the twins of the dropped chunks that the region may
// write (chunk.cmp: its bounds meet them, or it is not bounded), or of
// all of them: it copies their pages in memory into the twins, and counts
// them as compared at this Start. Every page in memory is copied, zero or
// not: a page the helper installed has a twin, which sequential code may
// since have made stale. Not timed: it populates twins. A chunk filled
// for the first time since it was dropped at a Stop is taken.
func (u *uffdTracker) fillDropped(all bool) {
	if !u.writesOnly {
		return
	}
	synced := uint32(u.starts + 1)
	ps := u.pageSize
	for lo, hi := range u.runs(u.armed/ps, func(c *chunk) bool { return c.dropped && (all || c.cmp) }) {
		for c := lo / chunkPages; c*chunkPages < hi; c++ {
			ch := &u.chunks[c]
			ch.dropped, ch.synced, ch.idle = false, synced, 0
			if !all && !ch.again {
				u.taken = append(u.taken, c)
			}
		}
		u.copyPresent(lo*ps, hi*ps)
	}
}

// releaseUnwritten drops, at a mixed Stop, the chunks whose twins its
// Start took (u.taken) and in which the region wrote nothing (u.dirty),
// if they are plainly hot (not in a probe's group), releasing their twin
// pages; they are marked again, so that their next fill keeps them.
func (u *uffdTracker) releaseUnwritten() error {
	taken := u.taken
	u.taken = u.taken[:0]
	slices.Sort(taken)
	var err error
	release := func(a, b int) {
		if a < b && err == nil {
			if err = u.releaseTwins(a*chunkPages, b*chunkPages); err != nil {
				err = fmt.Errorf("release the twins of pages [%d, %d), not written: %w", a*chunkPages, b*chunkPages, err)
			}
		}
	}
	a, b := 0, 0 // the run of chunks to release
	for _, c := range slices.Compact(taken) {
		ch := &u.chunks[c]
		i, _ := slices.BinarySearch(u.dirty, c*chunkPages)
		written := i < len(u.dirty) && u.dirty[i] < (c+1)*chunkPages
		if written || ch.state != chunkHot || ch.lead != 0 || ch.group != 0 || ch.dropped {
			continue
		}
		ch.dropped, ch.again, ch.synced = true, true, 0
		if c != b {
			release(a, b)
			a = c
		}
		b = c + 1
	}
	release(a, b)
	return err
}

// releaseTwins releases the twin pages [lo, hi): they read as zero from
// then on, and held forgets them, so that twinSpans asks again; the
// pages are no longer external (their twins are nowhere).
func (u *uffdTracker) releaseTwins(lo, hi int) error {
	u.ext.remove(lo, hi)
	return u.punchTwins(lo, hi)
}

// punchTwins releases the tracker's own twin pages [lo, hi), as
// releaseTwins, leaving external pages so.
func (u *uffdTracker) punchTwins(lo, hi int) error {
	ps := u.pageSize
	u.held.remove(lo, hi)
	tw := u.res.twin
	if tw.file < 0 {
		if err := pagemem.Madvise(tw.buf[lo*ps:hi*ps], unix.MADV_DONTNEED); err != nil {
			return fmt.Errorf("madvise: %w", err)
		}
		return nil
	}
	if err := unix.Fallocate(tw.file, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, int64(lo*ps), int64((hi-lo)*ps)); err != nil {
		return fmt.Errorf("fallocate: %w", err)
	}
	return nil
}
