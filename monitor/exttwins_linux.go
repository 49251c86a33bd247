//go:build linux

package monitor

import (
	"bytes"
	"fmt"
	"slices"
)

// External twins (Lazy.TwinsFrom, distributed homes with self replicas).
// A slave copies the pages it wrote in a region into its own replica
// before its notice (package cape's keepWritten), and the replica keeps
// them as of every version the node was at since. At the next Start the
// twin of such a page is that copy whenever the page has not changed
// since it was kept: the tracker then holds no twin of its own for it,
// and reads the copy instead (u.ext), which saves a copy of every page
// the node writes. The rules:
//
//   - Kept records the pages the caller copied, after a Stop; the next
//     Start compares each of them that the last region wrote (u.known)
//     with its copy (src, as of the region's entry), and where they are
//     equal makes the page external and releases its own twin page
//     (adoptKept). A page that changed since it was kept (sequential
//     code, a release's bytes) gets its own twin, as before.
//   - Every write of a twin page makes the page its own again first
//     (ownTwins): copies, fills, the probe, a snapshot region's Start.
//     Invalidate and releaseTwins do too; the helper writes only the
//     twins of invalidated pages.
//   - Reads of external pages' twins go through extTwin (Twin, and
//     diffPresent, which compares external pages with their copies).
//   - The copy must stay as it was kept until the page is kept again:
//     the caller's store keeps two versions a page and src reads the
//     newest one at most the entry's version, so the copy of the region
//     in progress, kept before its notice, is not read before the next
//     Start.

// TwinsFrom implements Lazy.
func (l *lazyTracker) TwinsFrom(src func(p int) []byte) { l.twinSrc = src }

// Kept implements Lazy.
func (l *lazyTracker) Kept(lo, hi int) {
	if l.twinSrc == nil || lo >= hi || hi > len(l.mem)/l.pageSize {
		return
	}
	l.kept.add(lo, hi)
}

// ownTwins makes the pages [lo, hi) have twins of their own again, and
// populates those (holdTwins), before their twins are written.
func (u *uffdTracker) ownTwins(lo, hi int) {
	u.ext.remove(lo, hi)
	u.holdTwins(lo, hi)
}

// extTwin returns the twin of the external page p, its copy, or nil if
// the copy is missing, which the caller must take as a change.
func (u *uffdTracker) extTwin(p int) []byte {
	ps := u.pageSize
	if t := u.twinSrc(p); len(t) == ps {
		return t[:ps:ps]
	}
	return nil
}

// twinOrZero returns the tracker's own twin of page p, or zeros where it
// is a hole of the twin file (never written since it was released, or
// ever): reading the hole through the mapping would populate it, a page
// of memory for a twin of zeros (a writes-only tracker does not hold the
// twins of the cold pages a region wrote).
func (u *uffdTracker) twinOrZero(p int) []byte {
	ps := u.pageSize
	tw := u.res.twin
	if tw.file >= 0 && !u.held.has(p) {
		hole := true
		tw.spans(&holeCache{}, p, p+1, ps, func(_, _ int, data bool) { hole = !data })
		if hole {
			return zeroPage(ps)[:ps:ps]
		}
	}
	return tw.buf[p*ps : (p+1)*ps : (p+1)*ps]
}

// adoptKept makes page p, which the last region wrote, external if the
// caller kept it (Kept) and it has not changed since, and reports whether
// it did; its own twin page is released by releaseAdopted. Where the
// stretch since the last Stop is proven clean (the Start's hint: nothing
// wrote the memory but announced writes and installs), a kept page not
// announced written since is unchanged without comparing it (a page
// invalidated since is no longer kept); else it is compared with its copy.
func (u *uffdTracker) adoptKept(p int, clean bool) bool {
	if u.twinSrc == nil || !u.kept.has(p) || (u.absent != nil && u.absent(p)) {
		return false
	}
	ps := u.pageSize
	t := u.twinSrc(p)
	if len(t) != ps {
		return false
	}
	if _, injected := slices.BinarySearch(u.wasInjected, p); injected || !clean {
		if !bytes.Equal(u.mem[p*ps:(p+1)*ps], t) {
			return false
		}
	}
	u.ext.add(p, p+1)
	if u.held.has(p) {
		u.adopted = append(u.adopted, p)
	}
	return true
}

// releaseAdopted releases the own twin pages of the pages adoptKept made
// external at this Start, and forgets what was kept.
func (u *uffdTracker) releaseAdopted() error {
	clear(u.kept)
	var err error
	for lo, hi := range pageRuns(u.adopted) {
		if err = u.punchTwins(lo, hi); err != nil {
			err = fmt.Errorf("release the twins of pages [%d, %d), kept elsewhere: %w", lo, hi, err)
			break
		}
	}
	u.adopted = u.adopted[:0]
	return err
}

// diffExt appends to dst the pages of [from, to), all external, whose
// memory differs from their copies, split across cores as diffParallel
// is.
func (u *uffdTracker) diffExt(dst []int, from, to int) []int {
	if workers((to-from)*u.pageSize) == 1 {
		return u.diffExtPages(dst, from, to)
	}
	return splitDiff(dst, u.pageSize, from, to, u.diffExtPages)
}

// diffExtPages is diffExt on one goroutine.
func (u *uffdTracker) diffExtPages(dst []int, from, to int) []int {
	ps := u.pageSize
	for p := from; p < to; p++ {
		// A missing copy counts as a change: a write is never lost.
		if t := u.extTwin(p); t == nil || !bytes.Equal(u.mem[p*ps:(p+1)*ps], t) {
			dst = append(dst, p)
		}
	}
	return dst
}

// extRuns calls fn for each maximal run [lo, hi) of [from, to) whose
// pages are all external (ext true) or all not.
func (u *uffdTracker) extRuns(from, to int, fn func(lo, hi int, ext bool)) {
	if len(u.ext) == 0 {
		fn(from, to, false)
		return
	}
	for p := from; p < to; {
		e := u.ext.has(p)
		q := p + 1
		for q < to && u.ext.has(q) == e {
			q++
		}
		fn(p, q, e)
		p = q
	}
}
