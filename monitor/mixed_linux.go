//go:build linux

package monitor

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/cape-go/cape/internal/uffd"
)

// Mixed regions (kindPlain, when the extent is large enough for the
// scans to pay): each chunk of chunkPages pages is hot or cold.
//
//   - A hot chunk is unprotected and tracked by comparison: Start makes
//     its twins current (copying the pages the last Stop found changed,
//     comparing the others and copying those that differ), Stop compares
//     it with them. It costs a comparison per page at each end, whatever
//     is written, and no fault.
//   - A cold chunk is write-protected: a PAGEMAP_SCAN walk, a few
//     nanoseconds a page, tells the pages written, as in a faults region.
//     Its twins are current while it stays unwritten. It costs nothing per
//     region until a page of it is written, which costs a write fault.
//
// A chunk is woken (made hot, its pages unprotected) when a page of it is
// found written at a Start (in the last region or since), when the last
// compared region of a probing chunk finds a page of it changed, or when
// the caller announces writes to it (WillWrite). A hot chunk in which
// nothing was seen written or changed for wait Starts is probed: one page
// of it, its probe page, is write-protected; if that page stays unwritten
// and nothing else in the chunk changes for wait more Starts, the whole
// chunk is armed and turns cold. Every wake of a probing chunk multiplies its wait by
// backoffProbe, of a cold one by backoffCold (up to waitMax), so that a chunk rewritten from time
// to time, or rewritten with its own bytes (which comparisons do not
// see), does not oscillate: the probe page takes at most one fault per
// probe. Iterative programs leave most of their memory unwritten in a
// given region (the other nodes' rows of a stencil's grids): those chunks
// turn cold, and a region costs in proportion to the pages it and the
// code between regions write. Memory the program has not touched yet is
// cold from the start (coldUnpopulated), and neither read nor compared
// while it stays so (populated): its pages and their twins are zero. A
// region whose writes are bounded wakes, before it starts, the chunks of
// it that the bounds meet, without populating them (wakeUntouched), so
// that its first writes there fault once, not twice.

// Bounds of chunk.wait.
const (
	waitFirst = 4
	waitMax   = 256
)

// chunkState is how a mixed region tracks a chunk.
type chunkState uint8

const (
	chunkHot     chunkState = iota // unprotected, compared
	chunkProbing                   // hot, with its probe page write-protected
	chunkCold                      // write-protected, scanned
)

// chunk is the tracking state of chunkPages consecutive pages.
type chunk struct {
	state chunkState
	// idle: consecutive Starts at which the chunk was hot and none of its
	// pages was seen written or changed.
	idle uint16
	// wait: idle Starts before a probe, and again before arming; 0 is
	// waitFirst.
	wait uint16
	// synced: 1 + the index of the Start that last compared the chunk
	// with its twins (0: none since it turned hot). With the Starts since
	// proven clean (Hint.Clean), its twins are still current.
	synced uint32
	// cmp: the current or last mixed region compares the chunk at its
	// Stop (it is hot and, if the region's writes are bounded, meets them).
	cmp bool
	// untouched: the chunk has been cold since coldUnpopulated armed it,
	// and no other node was seen writing it (see wakeUntouched).
	untouched bool
	// lead: 1 + the chunk whose probe this hot chunk follows (0: none);
	// group: on a probing chunk, how many chunks after it follow its
	// probe. See cool.
	lead  uint32
	group uint32
	// seen: 1 + the last Start after which the chunk was hot or probing
	// (0: cold since it was made). See deferScan.
	seen uint32
	// dropped: the chunk's twins were not taken (a writes-only tracker's
	// chunk that the extent grew over outside a region's bounds, or that
	// its region did not write): it is hot and stale, never compared nor
	// cooled, until fillDropped copies it at the first Start whose region
	// may write it. again: it was dropped at a Stop once; its twins are
	// kept from its next fill on. See writesonly_linux.go.
	dropped, again bool
}

func (c *chunk) waitFor() int {
	if c.wait == 0 {
		return waitFirst
	}
	return int(c.wait)
}

// due reports whether the chunk, hot or probing, stayed idle long enough
// to be probed or armed (see cool), which needs its twins current: after
// a stretch not proven clean it is compared at Start even where the
// region's writes do not meet it, or else a chunk the program stopped
// writing (memory it dropped or leaked, the other arrays of a region with
// bounded writes) would stay hot forever, and its pages, all of which may
// have changed as far as Between can tell, would cost the lazy master a
// comparison of its snapshot at every region.
//
// It is compared when its next step is due, not at every Start: a hot
// chunk when it may be probed (idle for its wait), a probing one or one
// that follows a probe when it may be armed (idle for twice its wait).
func (c *chunk) due() bool {
	if c.state == chunkProbing || c.lead != 0 {
		return int(c.idle) >= 2*c.waitFor()
	}
	return int(c.idle) >= c.waitFor()
}

// backoff multiplies the chunk's wait by k after a wake that a probe or
// a cold spell did not foresee.
func (c *chunk) backoff(k int) { c.wait = uint16(min(k*c.waitFor(), waitMax)) }

// Backoff factors: a probe page written says that the chunk is written
// though unchanged (rewritten with its own bytes, as the rows of a grid
// still zero are), which a longer wait will not change soon; a cold
// chunk written after a long rest may simply have started a new phase.
const (
	backoffProbe = 4
	backoffCold  = 2
)

// probePage returns the probe page of chunk c.
func probePage(c int) int { return c*chunkPages + chunkPages/2 }

// armedPage reports whether page p is meant to be write-protected outside
// regions: below armed and in a cold chunk, or a probing chunk's probe
// page. After a faults or compared region every chunk is cold.
func (u *uffdTracker) armedPage(p int) bool {
	if p >= u.armed/u.pageSize {
		return false
	}
	c := p / chunkPages
	if c >= len(u.chunks) {
		return true
	}
	switch u.chunks[c].state {
	case chunkCold:
		return true
	case chunkProbing:
		return p == probePage(c)
	}
	return false
}

// setChunks sizes the chunk states to cover n pages, all in state s.
func (u *uffdTracker) setChunks(n int, s chunkState) {
	u.chunks = u.chunks[:0]
	for range (n + chunkPages - 1) / chunkPages {
		u.chunks = append(u.chunks, chunk{state: s})
	}
}

// addChunks adds chunks in state s until they cover n pages.
func (u *uffdTracker) addChunks(n int, s chunkState) {
	for len(u.chunks)*chunkPages < n {
		u.chunks = append(u.chunks, chunk{state: s})
	}
}

// pageRange returns the pages of chunk c below n.
func pageRange(c, n int) (lo, hi int) { return c * chunkPages, min((c+1)*chunkPages, n) }

// hotRuns yields the page ranges [lo, hi) below n of the maximal runs of
// chunks that are not cold (hot or probing), in increasing order.
func (u *uffdTracker) hotRuns(n int) iter.Seq2[int, int] {
	return u.runs(n, func(c *chunk) bool { return c.state != chunkCold })
}

// comparedRuns is hotRuns restricted to the chunks the region compares.
func (u *uffdTracker) comparedRuns(n int) iter.Seq2[int, int] {
	return u.runs(n, func(c *chunk) bool { return c.state != chunkCold && c.cmp })
}

// runs yields the page ranges [lo, hi) below n of the maximal runs of
// chunks for which in holds, in increasing order.
func (u *uffdTracker) runs(n int, in func(*chunk) bool) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for c := 0; c*chunkPages < n; c++ {
			if !in(&u.chunks[c]) {
				continue
			}
			d := c
			for d+1 < len(u.chunks) && (d+1)*chunkPages < n && in(&u.chunks[d+1]) {
				d++
			}
			lo, _ := pageRange(c, n)
			_, hi := pageRange(d, n)
			if !yield(lo, hi) {
				return
			}
			c = d
		}
	}
}

// startMixed starts a mixed region over extent bytes: it finds what was
// written since the last Start, wakes and refreshes accordingly, makes
// the hot twins current, adds the pages of a grown extent (hot, or cold
// for whole chunks the program has not touched), and
// probes or arms the chunks that stayed idle.
func (u *uffdTracker) startMixed(extent int, h Hint) error {
	ps := u.pageSize
	np, old := extent/ps, u.armed/ps
	if len(u.chunks)*chunkPages < old {
		u.setChunks(old, chunkCold) // cannot happen: armed pages have states
	}
	if !h.Clean || u.kind != kindPlain || u.bare || u.starts == 0 || extent < u.extent {
		// This Start's stretch is not proven clean (or the extent shrank:
		// what is known written above it is forgotten).
		u.dirtyAt = uint32(u.starts + 1)
	}
	u.woke = u.woke[:0]
	if np > old && old%chunkPages != 0 && u.chunks[old/chunkPages].state != chunkHot {
		// The pages a grown extent adds to a chunk are not protected.
		u.woke = append(u.woke, old/chunkPages)
	}
	u.markCompared(h, 0, len(u.chunks))
	coldWritten, err := u.scanWritten(old, u.canDefer(h))
	if err != nil {
		return err
	}
	for _, p := range u.pending { // a compared region's changed pages
		u.woke = append(u.woke, p/chunkPages)
	}
	u.pending = u.pending[:0]
	if err := u.wake(old); err != nil {
		return err
	}
	u.fillDropped(false)
	// The woken chunks are hot: refreshHot copies the pages the last
	// region wrote (u.dirty, which holds the pending pages after a
	// compared region) and compares the others.
	injected := u.knownWritten()
	changed := u.refreshHot(min(np, old))
	if err := u.releaseAdopted(); err != nil {
		return err
	}
	u.costs.between = changed + injected + max(coldWritten-u.coldDirty, 0)
	if np > old {
		k := len(u.chunks)
		u.setChunksFrom(old, np)
		u.markCompared(h, k, len(u.chunks))
		u.dropNew(h, old, np)
		u.twinned = max(u.twinned, extent)
		if err := u.coldUnpopulated(old, np); err != nil {
			return err
		}
	}
	u.armed = max(u.armed, extent)
	if err := u.wakeUntouched(h, np); err != nil {
		return err
	}
	if err := u.cool(np); err != nil {
		return err
	}
	// Hot pages may have changed since the last Start, as far as Between
	// can tell: their comparison sees content, not writes. After a clean
	// stretch, only those the last region wrote (u.dirty), those announced
	// (u.injected) and those found changed by a comparison may have, and
	// Between leaves out the first two.
	clean := u.dirtyAt <= uint32(u.starts)
	if clean {
		for _, p := range u.changed {
			u.betw.add(p, p+1)
		}
	}
	cmp := 0
	for c := range (u.armed/ps + chunkPages - 1) / chunkPages {
		if u.chunks[c].state != chunkCold {
			u.chunks[c].seen = uint32(u.starts + 1)
			lo, hi := pageRange(c, u.armed/ps)
			if !clean {
				u.betw.add(lo, hi)
			}
			if u.chunks[c].cmp {
				cmp += max(min(hi, np)-lo, 0)
			}
		}
	}
	// The estimates count h compared pages at each end.
	u.costs.hot = (u.startCompared + cmp + 1) / 2
	return nil
}

// coldUnpopulated arms the whole new chunks of the pages [old, np) that
// hold no populated page (memory the program has not touched yet): they
// start cold rather than hot, so that they are neither compared nor probed
// while they stay untouched (the other nodes' share of an array), and
// their first writes, which fault anyway, are what wakes them, unless a
// bounded region's writes meet them first (wakeUntouched). One call
// arms each run of them; their pages are zero, as are their twins.
func (u *uffdTracker) coldUnpopulated(old, np int) error {
	first, end := (old+chunkPages-1)/chunkPages, np/chunkPages
	if first >= end {
		return nil
	}
	used := make([]bool, end-first)
	u.populated(first*chunkPages, end*chunkPages, func(lo, hi int) {
		for c := lo / chunkPages; c*chunkPages < hi && c < end; c++ {
			used[c-first] = true
		}
	})
	ps := u.pageSize
	for c := first; c < end; {
		if used[c-first] {
			c++
			continue
		}
		d := c
		for d < end && !used[d-first] {
			// A dropped chunk's twins are zero, as its pages are.
			ch := &u.chunks[d]
			ch.state, ch.untouched, ch.dropped, ch.synced = chunkCold, true, false, uint32(u.starts+1)
			d++
		}
		if err := u.writeProtect(c*chunkPages*ps, d*chunkPages*ps, true); err != nil {
			return err
		}
		c = d
	}
	return nil
}

// setChunksFrom adds hot chunks for the pages [old, np).
func (u *uffdTracker) setChunksFrom(old, np int) {
	for len(u.chunks)*chunkPages < np {
		u.chunks = append(u.chunks, chunk{})
	}
	if old%chunkPages != 0 {
		u.chunks[old/chunkPages].state = chunkHot // woken above
	}
}

// copyNew copies the pages [lo, hi) that a grown extent adds into the
// twins. A page past twinned whose twin was never written is zero, as a
// fresh page of memory is: such pages are copied only if they are not
// zero, and read only if they are populated, so that the memory a program
// has not used yet costs no page of twin and no fault (tens of
// microseconds each on some machines).
func (u *uffdTracker) copyNew(lo, hi int) {
	ps := u.pageSize
	fresh := max(lo, (u.twinned+ps-1)/ps)
	u.copyPresent(lo*ps, min(fresh, hi)*ps)
	if len(u.zero) != ps {
		u.zero = make([]byte, ps)
	}
	u.presentRuns(fresh, hi, func(a, b int) {
		for p := a; p < b; {
			for p < b && bytes.Equal(u.mem[p*ps:(p+1)*ps], u.zero) {
				p++
			}
			q := p
			for q < b && !bytes.Equal(u.mem[q*ps:(q+1)*ps], u.zero) {
				q++
			}
			if p < q {
				u.ownTwins(p, q)
				copyParallel(u.res.twin.buf[p*ps:q*ps], u.mem[p*ps:q*ps])
			}
			p = q
		}
	})
}

// scanWritten walks the pages [0, old) for those written since the last
// Start: it adds to u.woke the cold chunks of which a page was written and
// the probing chunks whose probe page was, and returns the number of
// pages of cold chunks written. Every written page of a cold chunk may
// have changed (Between).
//
// With deferred (see canDefer), the frozen chunks (frozen) are left out of
// the walk: a page written since they were last walked stays unprotected,
// and so reads as written, until a walk that does not leave it out, at a
// Start whose region may write it or at any Start of another kind.
func (u *uffdTracker) scanWritten(old int, deferred bool) (coldWritten int, err error) {
	found := func(lo, hi int) {
		for p := lo; p < hi; {
			c := p / chunkPages
			end := min(hi, (c+1)*chunkPages)
			switch u.chunks[c].state {
			case chunkCold:
				coldWritten += end - p
				u.woke = append(u.woke, c)
				u.betw.add(p, end)
			case chunkProbing:
				if pp := probePage(c); p <= pp && pp < end {
					u.woke = append(u.woke, c)
				}
			}
			// The pages of hot and probing chunks, unprotected, all read
			// as written: startMixed tells which may have changed.
			p = end
		}
	}
	if !deferred {
		return coldWritten, u.scan(0, old*u.pageSize, false, found)
	}
	u.deferred = true
	walked := func(c *chunk) bool { return !u.frozen(c) }
	for lo, hi := range u.runs(old, walked) {
		if err := u.scan(lo*u.pageSize, hi*u.pageSize, false, found); err != nil {
			return coldWritten, err
		}
	}
	return coldWritten, nil
}

// freezeAfter is how many Starts a chunk stays cold before a Start may
// leave it out of its walk (frozen).
const freezeAfter = 32

// canDefer reports whether this mixed Start, whose region h bounds, may
// leave the frozen chunks out of its walk for the pages written since the
// last Start. Those pages matter only to a region that may write them (its
// Stop would take them for its own writes, and diff them against stale
// twins) and to Between, which a watching caller reads: so not for an
// unbounded region, nor when watched, nor on a lazy node (its absent
// pages are invalidated under write-protection markers).
func (u *uffdTracker) canDefer(h Hint) bool {
	return h.Bounded && !u.watch && u.absent == nil
}

// frozen reports whether chunk c is left out of a deferring Start's walk:
// cold for freezeAfter Starts and outside the bounds of the region's
// writes (chunk.cmp, set by markCompared before the walk). Its twins are
// as of the last walk that covered it, its pages written since are
// unprotected (they read as written), and writes between regions leave it
// so: a later walk finds them, a Start of another kind (which walks, copies
// or compares the whole extent) or of a region whose writes meet the chunk.
func (u *uffdTracker) frozen(c *chunk) bool {
	return c.state == chunkCold && !c.cmp && u.starts+1-int(c.seen) >= freezeAfter
}

// copyPage refreshes the twin of page p, unless it is absent. It holds
// the twin page first (a bit test once held); callers that copy runs of
// pages hold them first, in one call per run.
func (u *uffdTracker) copyPage(p int) {
	if u.absent != nil && u.absent(p) {
		return
	}
	ps := u.pageSize
	u.ownTwins(p, p+1)
	copy(u.res.twin.buf[p*ps:(p+1)*ps], u.mem[p*ps:(p+1)*ps])
}

// wake makes the chunks in u.woke hot: it unprotects their pages below
// old (the present ones: an absent page keeps the protection that makes
// it read as not written) and backs off their wait. Their protected
// pages' twins are current (they were not written since); the written
// ones are refreshed by refreshHot, as any hot page.
func (u *uffdTracker) wake(old int) error {
	slices.Sort(u.woke)
	u.woke = slices.Compact(u.woke)
	for i := 0; i < len(u.woke); {
		j := i
		for ; j < len(u.woke) && u.woke[j] == u.woke[i]+(j-i); j++ {
			ch := &u.chunks[u.woke[j]]
			switch ch.state {
			case chunkProbing:
				ch.backoff(backoffProbe)
				u.backoffGroup(u.woke[j])
			case chunkCold:
				ch.backoff(backoffCold)
			}
			ch.state, ch.idle, ch.synced, ch.untouched = chunkHot, 0, 0, false
		}
		lo, _ := pageRange(u.woke[i], old)
		_, hi := pageRange(u.woke[j-1], old)
		if err := u.unprotectPresent(lo, hi); err != nil {
			return err
		}
		i = j
	}
	u.woke = u.woke[:0]
	return nil
}

// backoffGroup backs off, with the probing chunk c that wakes, the chunks
// that follow its probe: they leave the group as if probed themselves.
func (u *uffdTracker) backoffGroup(c int) {
	for e := c + 1; e <= c+int(u.chunks[c].group) && e < len(u.chunks); e++ {
		if f := &u.chunks[e]; f.lead == uint32(c+1) {
			f.lead, f.idle = 0, 0
			f.backoff(backoffProbe)
		}
	}
	u.chunks[c].group = 0
}

// unprotectPresent unprotects the present pages of [lo, hi).
func (u *uffdTracker) unprotectPresent(lo, hi int) error {
	ps := u.pageSize
	if u.absent == nil {
		return u.writeProtect(lo*ps, hi*ps, false)
	}
	var err error
	u.notAbsentRuns(lo, hi, func(a, b int) {
		if err == nil {
			err = u.writeProtect(a*ps, b*ps, false)
		}
	})
	return err
}

// knownWritten sets u.known to the pages known written since the last
// Start, increasing: those the last Stop reported and those announced by
// WillWrite. It returns how many of the latter were not reported.
func (u *uffdTracker) knownWritten() int {
	slices.Sort(u.injected)
	u.injected = slices.Compact(u.injected)
	u.known = u.known[:0]
	i, j, injected := 0, 0, 0
	for i < len(u.dirty) || j < len(u.injected) {
		switch {
		case j == len(u.injected) || (i < len(u.dirty) && u.dirty[i] < u.injected[j]):
			u.known = append(u.known, u.dirty[i])
			i++
		case i == len(u.dirty) || u.injected[j] < u.dirty[i]:
			u.known = append(u.known, u.injected[j])
			j, injected = j+1, injected+1
		default:
			u.known = append(u.known, u.dirty[i])
			i, j = i+1, j+1
		}
	}
	u.wasInjected = append(u.wasInjected[:0], u.injected...)
	u.injected = u.injected[:0]
	return injected
}

// refreshHot makes the twins of the hot and probing chunks' pages below n
// current, as far as the region needs: the pages known written (u.known,
// increasing) are copied, and the other pages of the chunks the region
// compares are compared and copied if they differ, unless the chunk's
// twins are still current (compared at a Start after which every Start
// was proven clean). It counts the Starts each chunk stayed idle, and
// returns the number of pages that differed without having been reported:
// those written between regions.
func (u *uffdTracker) refreshHot(n int) int {
	changed := u.changed[:0]
	var tCmp, tCopy time.Duration
	u.fresh = 0
	compared, copied := 0, 0
	dirty := u.known
	clean := u.dirtyAt != uint32(u.starts+1) // proven: see adoptKept
	t := time.Now()
	for lo, hi := range u.hotRuns(n) {
		for e := lo / chunkPages; e*chunkPages < hi; e++ {
			u.chunks[e].idle++
		}
		i, _ := slices.BinarySearch(dirty, lo)
		j := i
		for j < len(dirty) && dirty[j] < hi {
			j++
		}
		own := u.copyBuf[:0]
		for ; i < j; i++ {
			u.chunks[dirty[i]/chunkPages].idle = 0
			if !u.adoptKept(dirty[i], clean) {
				own = append(own, dirty[i])
			}
		}
		u.ownPages(own)
		for _, p := range own {
			u.copyPage(p)
		}
		copied += len(own)
		u.copyBuf = own
	}
	tCopy += time.Since(t)
	synced := uint32(u.starts + 1)
	// A chunk the region does not compare is compared here once it is
	// due to cool, at a Start not proven clean: after a clean stretch its
	// pages cost nothing while it stays hot (Between leaves them out).
	unproven := u.dirtyAt == synced
	stale := func(c *chunk) bool {
		return c.state != chunkCold && (c.cmp || unproven && c.due() && !c.dropped) && c.synced < u.dirtyAt
	}
	for lo, hi := range u.runs(n, stale) {
		// Not a chunk n cuts, whose pages above n are not compared, unless
		// they are above every extent so far (untracked; a grown extent
		// copies them and wakes the chunk).
		for e := lo / chunkPages; e*chunkPages < hi && ((e+1)*chunkPages <= hi || hi == u.armed/u.pageSize); e++ {
			u.chunks[e].synced = synced
		}
		// Compare the gaps between the pages known written.
		t1 := time.Now()
		k := len(changed)
		i, _ := slices.BinarySearch(dirty, lo)
		p := lo
		for ; i < len(dirty) && dirty[i] < hi; i++ {
			changed = u.diffPresent(changed, p, dirty[i])
			compared += dirty[i] - p
			p = dirty[i] + 1
		}
		changed = u.diffPresent(changed, p, hi)
		compared += hi - p
		t2 := time.Now()
		for _, q := range changed[k:] {
			u.copyPage(q)
		}
		tCopy += time.Since(t2)
		tCmp += t2.Sub(t1)
		copied += len(changed) - k
	}
	for _, q := range changed {
		u.chunks[q/chunkPages].idle = 0
	}
	u.startCompared = compared
	u.observe(u.costs.observeCompare, tCmp, compared)
	u.observe(u.costs.observeCopy, tCopy, copied)
	u.changed = changed
	return len(changed)
}

// takeHint returns the hint SetHint gave for this Start, and forgets it.
func (u *uffdTracker) takeHint() Hint {
	h := u.hint
	u.hint = Hint{Writes: u.hint.Writes[:0]}
	return h
}

// SetHint implements Hinter. Mixed regions use it: a region whose
// writes are bounded compares only the hot chunks they meet, and a Start
// after a clean stretch does not compare the chunks whose twins are still
// current. Other kinds of region ignore it.
func (u *uffdTracker) SetHint(h Hint) {
	u.hint.Clean, u.hint.Bounded = h.Clean, h.Bounded
	u.hint.Writes = append(u.hint.Writes[:0], h.Writes...)
}

// markCompared sets, for the chunks [from, to), whether the region
// compares them at its Stop (when hot): all of them, unless h bounds the
// region's writes, then those the bounds meet.
func (u *uffdTracker) markCompared(h Hint, from, to int) {
	cb := chunkPages * u.pageSize
	for c := from; c < to; c++ {
		in := !h.Bounded
		for _, w := range h.Writes {
			if w.Len > 0 && w.Off < (c+1)*cb && c*cb < w.Off+w.Len {
				in = true
				break
			}
		}
		u.chunks[c].cmp = in
	}
}

// cool probes the hot chunks below n pages that stayed idle for their
// wait, arms the probing ones that stayed idle for twice their wait, and
// wakes back the probing ones that were not idle (their probe page is
// unprotected again). Only whole chunks below n, whose twins refreshHot
// made current, change state.
//
// Consecutive chunks that turn idle together, with the same wait, share
// one probe, their first chunk's: write-protecting a page costs a TLB
// flush, tens of microseconds on some machines while another thread of
// the process runs (RESULTS.md, "Probes"), and the chunks of one array
// written by one loop behave alike (a stencil's node rewrites its rows
// of a grid still zero with their own bytes, all of them, every other
// region). The others follow it, hot: if its probe page is written, they
// back off with it (wake); if it stays unwritten, they are armed with it
// (armsWith), in the same call. A follower that changes leaves the group,
// and so do those after it when the leader is armed (they no longer touch
// it): they are probed again, as a group of their own.
func (u *uffdTracker) cool(n int) error {
	ps := u.pageSize
	full := n / chunkPages
	for c := 0; c < full; c++ {
		ch := &u.chunks[c]
		if ch.lead != 0 && u.following(c) {
			continue
		}
		w := ch.waitFor()
		if ch.synced < u.dirtyAt {
			continue // its twins may be stale: not before it is compared
		}
		switch {
		case ch.state == chunkHot && int(ch.idle) >= w:
			d, err := u.probeRun(c, full)
			if err != nil {
				return err
			}
			c = d
		case ch.state == chunkProbing && ch.idle == 0:
			// Changed elsewhere in the chunk: the probe was premature.
			ch.state = chunkHot
			ch.backoff(backoffCold)
			p := probePage(c)
			if u.absent == nil || !u.absent(p) {
				if err := u.writeProtect(p*ps, (p+1)*ps, false); err != nil {
					return err
				}
			}
		case ch.state == chunkProbing && int(ch.idle) >= 2*w:
			// Arm the run of chunks that turn cold here together, with
			// the chunks that follow their probes.
			d := c
			for d+1 < full && u.armsWith(c, d+1) {
				d++
			}
			for e := c; e <= d; e++ {
				u.chunks[e].state, u.chunks[e].lead = chunkCold, 0
			}
			if err := u.writeProtect(c*chunkPages*ps, (d+1)*chunkPages*ps, true); err != nil {
				return err
			}
			c = d
		}
	}
	return nil
}

// probeRun probes the hot chunk c, due for it, with the chunks after it
// (below full) that can share its probe, and returns the last of them.
// Of those, the chunks whose probe page the program touched share one
// probe in each run of them, the run's first chunk's; each of the others
// is probed alone, which costs nothing: its page stays unprotected, and a
// write populates it, which reads as written.
func (u *uffdTracker) probeRun(c, full int) (int, error) {
	d := c
	for d+1 < full && u.joins(d+1, u.chunks[c].waitFor()) {
		d++
	}
	touched := u.touchedBuf[:0]
	u.pagesIn(probePage(c), probePage(d)+1, uffd.PageIsPresent|uffd.PageIsSwapped, func(lo, hi int) {
		// The chunks whose probe page is in [lo, hi).
		for e := (lo + chunkPages/2 - 1) / chunkPages; e <= d && probePage(e) < hi; e++ {
			touched = append(touched, e)
		}
	})
	u.touchedBuf = touched
	for e := c; e <= d; e++ {
		ch := &u.chunks[e]
		ch.state, ch.group = chunkProbing, 0
	}
	for i := 0; i < len(touched); {
		l, j := touched[i], i+1
		for ; j < len(touched) && touched[j] == l+j-i; j++ {
			f := &u.chunks[touched[j]]
			f.state, f.lead = chunkHot, uint32(l+1)
		}
		u.chunks[l].group = uint32(j - i - 1)
		p := probePage(l)
		if err := u.writeProtect(p*u.pageSize, (p+1)*u.pageSize, true); err != nil {
			return d, err
		}
		i = j
	}
	return d, nil
}

// armsWith reports whether chunk e turns cold with the chunks [c, e),
// which do: it is probing and stayed idle for twice its wait, or it
// follows the probe of one of them and stayed idle since.
func (u *uffdTracker) armsWith(c, e int) bool {
	k := &u.chunks[e]
	switch {
	case k.synced < u.dirtyAt:
		return false
	case k.state == chunkProbing:
		return int(k.idle) >= 2*k.waitFor()
	}
	l := int(k.lead) - 1
	return k.state == chunkHot && k.idle > 0 && c <= l && l < e
}

// following reports whether the hot chunk c, which follows a probe, still
// does: its leader (before c, so already past cool's loop) is probing and
// c stayed idle. Otherwise c leaves the group.
func (u *uffdTracker) following(c int) bool {
	ch := &u.chunks[c]
	if ch.state == chunkHot && ch.idle > 0 && u.chunks[ch.lead-1].state == chunkProbing {
		return true
	}
	ch.lead = 0
	return false
}

// joins reports whether the chunk e, after one about to be probed with
// wait w, can follow that probe: it follows no other (one whose leader
// left probing leaves its group here, before cool's loop reaches it).
func (u *uffdTracker) joins(e, w int) bool {
	k := &u.chunks[e]
	if k.lead != 0 && u.following(e) {
		return false
	}
	return k.state == chunkHot && k.waitFor() == w && int(k.idle) >= w && k.synced >= u.dirtyAt
}

// stopMixed collects a mixed region's pages: the written pages of cold
// chunks, from a scan, and the changed pages of the others, compared.
func (u *uffdTracker) stopMixed() error {
	ps := u.pageSize
	n := u.extent / ps
	cold := u.coldPages[:0]
	err := u.scanBounds(func(lo, hi int) {
		for p := lo; p < hi; {
			c := p / chunkPages
			end := min(hi, (c+1)*chunkPages)
			if u.chunks[c].state == chunkCold {
				for ; p < end; p++ {
					cold = append(cold, p)
				}
			}
			p = end
		}
	})
	u.coldPages = cold
	if err != nil {
		return err
	}
	if !u.writesOnly {
		u.holdPages(cold) // their twins are read to make the delta
	}
	// A writes-only tracker's caller reads few twins (Twin, for the pages
	// several nodes wrote): a cold page written for the first time has a
	// zero twin, which Twin returns without populating it (twinOrZero).
	u.fresh = 0
	t := time.Now()
	hot := u.hotDirty[:0]
	compared := 0
	for lo, hi := range u.comparedRuns(n) {
		hot = u.diffPresent(hot, lo, hi)
		compared += hi - lo
	}
	u.observe(u.costs.observeCompare, time.Since(t), compared)
	u.hotDirty = hot
	u.coldDirty = len(cold)
	// Both are increasing and disjoint (by chunk).
	u.dirty = u.dirty[:0]
	i, j := 0, 0
	for i < len(cold) || j < len(hot) {
		if j == len(hot) || (i < len(cold) && cold[i] < hot[j]) {
			u.dirty = append(u.dirty, cold[i])
			i++
		} else {
			u.dirty = append(u.dirty, hot[j])
			j++
		}
	}
	return nil
}

// WillWrite implements Injector. The protected pages of [off, off+n)
// below the tracked range are unprotected before the caller writes them,
// so that the writes cost no fault: in mixed regions with their whole
// chunks, which turn hot, and the next Start copies the pages announced
// into their twins without comparing them first; after a faults or
// compared region, only those pages (the next such Start re-arms them).
func (u *uffdTracker) WillWrite(off, n int) error { return u.willWrite(off, n, u.absent) }

// willWrite is WillWrite, with absent the pages to leave alone (absent
// pages are not mapped: their content comes with their install).
func (u *uffdTracker) willWrite(off, n int, absent func(p int) bool) error {
	switch {
	case u.closed:
		return fmt.Errorf("will write: %w", ErrClosed)
	case u.started:
		return fmt.Errorf("will write: %w: inside a region", ErrState)
	case off < 0 || n < 0 || off > len(u.mem)-n:
		return fmt.Errorf("will write [%#x, %#x): outside the %d bytes tracked", off, off+n, len(u.mem))
	case n == 0:
		return nil
	}
	ps := u.pageSize
	top := u.armed / ps
	mixed := u.kind == kindPlain && !u.bare
	lo, hi := off/ps, min((off+n-1)/ps+1, top)
	for p := lo; p < hi; p++ {
		if mixed && (absent == nil || !absent(p)) {
			u.injected = append(u.injected, p)
		}
		if !u.armedPage(p) || (absent != nil && absent(p)) {
			continue
		}
		if mixed {
			u.woke = append(u.woke[:0], p/chunkPages)
			if err := u.wake(top); err != nil {
				return fmt.Errorf("will write: %w", err)
			}
			continue
		}
		q := p + 1
		for q < hi && u.armedPage(q) && (absent == nil || !absent(q)) {
			q++
		}
		if err := u.writeProtect(p*ps, q*ps, false); err != nil {
			return fmt.Errorf("will write: %w", err)
		}
		p = q
	}
	return nil
}
