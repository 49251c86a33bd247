package monitor

import (
	"slices"
	"time"
)

// regionKind is how the uffd backend tracks one region.
type regionKind int

const (
	// kindFaults: the extent is write-protected; each page written (in the
	// region or between regions) costs a write fault and a twin refresh.
	kindFaults regionKind = iota
	// kindCompare: the extent is unprotected during the region and
	// compared with the twins at Stop, then re-protected, so writes
	// between regions still fault and only changed twins are refreshed.
	kindCompare
	// kindPlain: nothing is protected; Start copies the extent into the
	// twins and Stop compares it, the compare backend's work. No fault at
	// all, in or between regions.
	kindPlain
	numKinds
)

// kindSnap: the hint bounds the region's writes to a few pages; Start
// copies them into the twins and Stop compares them, and nothing is
// armed, walked or scanned (snap_linux.go).
// It is not one of the kinds the estimates choose from (numKinds): the
// tracker takes it where snapCheaper says, and otherwise leaves the state
// of the kind before it as it was.
const kindSnap = numKinds

func (k regionKind) String() string {
	return [...]string{"faults", "compare", "plain", "snap"}[k]
}

// regionCosts chooses how the next region is tracked from what the
// tracker measured on its own recent regions: the cost of a write fault
// (timed by probing one page at some Starts), of copying a page, of
// comparing one and of changing a page's protection (timed on the
// copies, comparisons and UFFDIO_WRITEPROTECT calls the tracker does
// anyway), the pages the last region wrote and the pages written between
// the last two regions. A write fault costs under a microsecond on one
// machine and twenty on a paravirtualized one (RESULTS.md, "Monitors"),
// so no fixed fraction of dirty pages is right everywhere.
type regionCosts struct {
	frozen bool   // tests: keep the figures they set
	fault  window // ns per write fault, recent probes
	copyNS window // ns per page copied into the twins
	cmpNS  window // ns per page compared with the twins
	wpNS   window // ns per page write-protected or unprotected by UFFDIO_WRITEPROTECT
	bulkNS window // ns per page of a whole-extent copy (on every core)
	// callNS: ns per call of a small PAGEMAP_SCAN or UFFDIO_WRITEPROTECT,
	// the fixed cost of an armed region (tens of microseconds on a
	// paravirtualized guest, where changing a protection flushes TLBs).
	callNS window
	// walkNS: ns per page of a PAGEMAP_SCAN call over minTimedPages
	// pages or more, the walk of the extent at the Start of a faults or
	// mixed region.
	walkNS  window
	written int // pages the last region wrote (faults) or changed (compared)
	between int // pages written between the last two regions
	// hot: pages a mixed region compares (those of its hot chunks), as of
	// the last mixed Start; spread: pages in the chunks the last region
	// wrote, those a mixed region would compare if it followed a faults
	// or compared one.
	hot, spread int
	hotKnown    bool // hot or spread was measured; else every page is hot

	// A compared region sees the pages it changed, not those it rewrote
	// with their own bytes, which fault all the same: a stencil on a grid
	// still mostly zero writes 1022 pages and changes 4. So the faults
	// estimate of a compared region uses the pages the last tracked one
	// wrote. After explore compared regions (doubling each time), one
	// region measures: if plain, it counts the pages written between
	// regions (a plain region copies the whole extent and cannot tell
	// otherwise), and when the pages it changes say faults would be
	// cheaper, it write-protects a sample of sampleSize pages spread over
	// the extent and counts those written.
	writtenFaults int  // pages the last kindFaults region wrote, or the sample's estimate
	wfKnown       bool // writtenFaults was measured
	regions       int  // regions ended
	compared      int  // compared regions since the last sample or kindFaults one
	explore       int  // compared regions before the next sample
	sample        bool // the next region samples its writes
	measure       bool // the next region, if plain, counts the pages written between regions
	samples       int  // samples taken, to vary their pages
}

// chunkPages is the number of pages whose tracking a mixed region (see
// mixed_linux.go) decides together: 64 KiB, so that a row of a grid or a
// run of an array shares one decision and a probe page answers for
// fifteen others.
const chunkPages = 16

// sampleSize is the number of pages a sampling region write-protects: at
// most that many faults, against one per page written for a region tracked
// by faults.
const sampleSize = 64

// maxExplore bounds regionCosts.explore.
const maxExplore = 1 << 12

// exploreFirst is the first value of regionCosts.explore.
const exploreFirst = 4

// window keeps the last len(w.s) samples; its estimate is their median,
// which a measurement preempted on a loaded machine does not move (a
// preempted copy of a megabyte is more likely than a preempted fault).
type window struct {
	s [9]float64
	n int // samples taken
}

func (w *window) add(v float64) { w.s[w.n%len(w.s)] = v; w.n++ }

func (w *window) median() float64 {
	k := min(w.n, len(w.s))
	if k == 0 {
		return 0
	}
	var buf [len(w.s)]float64
	s := buf[:k]
	copy(s, w.s[:k])
	slices.Sort(s)
	return s[k/2]
}

// copyPrior is the cost in ns of copying a page before the tracker has
// timed one: 4 KiB at 4 GB/s, the slow end of RESULTS.md's machines.
const copyPrior = 1000

// Measurements below minTimedPages are too short for the clock.
const minTimedPages = 32

// observeFault records a probed write fault that took d.
func (c *regionCosts) observeFault(d time.Duration) {
	if !c.frozen {
		c.fault.add(float64(d.Nanoseconds()))
	}
}

// observeCopy records d spent copying pages pages into the twins.
func (c *regionCosts) observeCopy(d time.Duration, pages int) { c.observe(&c.copyNS, d, pages) }

// observeBulk records d spent copying a whole extent of pages pages.
func (c *regionCosts) observeBulk(d time.Duration, pages int) { c.observe(&c.bulkNS, d, pages) }

// observeCompare records d spent comparing pages pages with their twins.
func (c *regionCosts) observeCompare(d time.Duration, pages int) { c.observe(&c.cmpNS, d, pages) }

// observeProtect records d spent changing the protection of pages pages.
func (c *regionCosts) observeProtect(d time.Duration, pages int) { c.observe(&c.wpNS, d, pages) }

// observeCall records d spent in one PAGEMAP_SCAN or UFFDIO_WRITEPROTECT
// call over pages pages: only calls over fewer than minTimedPages pages,
// whose time is mostly the call's own.
func (c *regionCosts) observeCall(d time.Duration, pages int) {
	if !c.frozen && pages < minTimedPages {
		c.callNS.add(float64(d.Nanoseconds()))
	}
}

// observeWalk records d spent in one PAGEMAP_SCAN call over pages pages:
// only calls over minTimedPages pages or more.
func (c *regionCosts) observeWalk(d time.Duration, pages int) { c.observe(&c.walkNS, d, pages) }

// Calls an armed region makes at least, besides its faults: kindFaults
// scans and re-arms at Start and scans at Stop; kindCompare also disarms
// at Start and re-arms at Stop. A plain region makes none.
const (
	faultsCalls  = 2
	compareCalls = 3
)

// plainOnly reports whether a region over e pages is cheaper plain than
// armed whatever it writes and whatever a fault costs: copying and
// comparing the extent costs less than the calls of a faults region. Such
// a region needs no fault probe.
func (c *regionCosts) plainOnly(e int) bool {
	if c.callNS.n == 0 {
		return false
	}
	_, _, cm, _, bulk := c.figures()
	return (bulk+cm)*float64(e) < faultsCalls*c.callNS.median()
}

// snapMaxPages is the most pages a snapshot region copies and compares,
// chosen from the measurements in RESULTS.md ("Empty regions",
// BenchmarkSnapBounds): over more, a snapshot region cost more than a
// faults or mixed region, whose cost does not grow with the bounds.
const snapMaxPages = 32

// snapCheaper reports whether a region whose writes are bounded to h
// pages of an extent of e costs less as a snapshot region (a copy and a
// comparison of the h pages, timed as those of a whole extent) than as a
// region of the kind cur (bare: a plain region with nothing armed), if it
// writes what the last one did:
//
//   - faults: a fault, a copy and a re-arm per page written, the Start's
//     walk of the extent and two calls;
//   - compare: the extent unprotected, compared and protected again, a
//     copy per page written, and three calls;
//   - mixed: a comparison of the h pages at Stop, and at Start too when
//     the stretch before it is not proven clean, the Start's walk of the
//     extent and two calls;
//   - bare: a copy and a comparison of the e pages.
//
// Calls are counted at the cost of a short one, walks at their measured
// cost per page (none until measured). Writes between regions cost the
// same either way. Without a fault figure, faults and compared regions
// are not estimated: false. Over snapMaxPages pages, false: the figures
// of calls and walks, few and noisy, can make faults or mixed regions
// look dearer than they are, and a snapshot region over many pages costs
// more than either (RESULTS.md, "Empty regions").
func (c *regionCosts) snapCheaper(cur regionKind, bare bool, h, e int, clean bool) bool {
	if h > snapMaxPages || (cur == kindPlain && bare && h >= e) {
		return false // before the figures, whose medians cost a sort each
	}
	f, cp, cm, wp, bulk := c.figures()
	snap := (bulk + cm) * float64(h)
	w, ef, call, walk := float64(c.written), float64(e), c.callNS.median(), c.walkNS.median()
	var other float64
	switch {
	case cur == kindPlain && bare:
		other = (bulk + cm) * ef
	case cur == kindPlain:
		other = cm*float64(h) + faultsCalls*call + walk*ef
		if !clean {
			other += cm * float64(h)
		}
	case c.fault.n == 0:
		return false
	case cur == kindFaults:
		other = (f+cp+wp)*w + faultsCalls*call + walk*ef
	default:
		other = (cm+2*wp)*ef + cp*w + compareCalls*call
	}
	return snap < other
}

// observe records d spent on pages pages in w.
func (c *regionCosts) observe(w *window, d time.Duration, pages int) {
	if c.frozen || pages < minTimedPages {
		return
	}
	w.add(float64(d.Nanoseconds()) / float64(pages))
}

// estimate returns the predicted cost in ns of a region of kind k over an
// extent of e pages (its Start, its Stop, and the faults taken in it and
// before the next Start), if the next region and the writes after it
// repeat the last ones. ok is false while a figure it needs is unknown.
func (c *regionCosts) estimate(k regionKind, e int) (ns float64, ok bool) {
	return c.estimateW(k, e, c.written)
}

// estimateW is estimate with wf pages written by a kindFaults region.
func (c *regionCosts) estimateW(k regionKind, e, wf int) (ns float64, ok bool) {
	if c.fault.n == 0 {
		return 0, false
	}
	f, cp, cm, wp, _ := c.figures()
	w, b, ef := float64(c.written), float64(c.between), float64(e)
	call := c.callNS.median()
	switch k {
	case kindFaults:
		// A written page faults, is refreshed and re-armed.
		return (f+cp+wp)*(float64(wf)+b) + faultsCalls*call, true
	case kindCompare:
		// The extent is unprotected, compared and protected again.
		return (cm+2*wp)*ef + f*b + cp*(w+b) + compareCalls*call, true
	default:
		// Mixed: the hot pages are compared at Start (but those the last
		// region changed, copied) and at Stop, the changed ones copied,
		// the cold ones scanned.
		h := ef
		if c.hotKnown {
			h = float64(min(max(c.hot, c.spread+c.between, c.written), e))
		}
		return cm*(2*h-w) + cp*(w+b) + faultsCalls*call, true
	}
}

// figures returns the current estimates in ns: a fault, a page copied, a
// page compared, a page protected, a page of a whole-extent copy. Copy,
// compare and bulk copy not measured yet are copyPrior, protection the
// compare figure.
func (c *regionCosts) figures() (f, cp, cm, wp, bulk float64) {
	f, cp, cm, wp, bulk = c.fault.median(), c.copyNS.median(), c.cmpNS.median(), c.wpNS.median(), c.bulkNS.median()
	if cp == 0 {
		cp = copyPrior
	}
	if bulk == 0 {
		bulk = cp
	}
	if cm == 0 {
		cm = cp // comparing a clean page reads two, copying reads and writes one
	}
	if c.wpNS.n == 0 {
		// Not measured yet (nothing was armed): changing a page's
		// protection costs at least what comparing it does (3 times as
		// much on the paravirtualized guest of RESULTS.md), so that a
		// compared region, which unprotects and protects the extent, is
		// not chosen for want of a figure.
		wp = cm
	}
	return f, cp, cm, wp, bulk
}

// endRegion records that a region wrote (faults) or changed (compared)
// written pages.
func (c *regionCosts) endRegion(written int) { c.written, c.regions = written, c.regions+1 }

// observeSpread records the pages (increasing) a region reported, for the
// estimate of a mixed region's hot pages: the pages of their chunks.
func (c *regionCosts) observeSpread(pages []int) {
	n, last := 0, -1
	for _, p := range pages {
		if ch := p / chunkPages; ch != last {
			n, last = n+1, ch
		}
	}
	c.spread, c.hotKnown = n*chunkPages, true
}

// switchGain is how much cheaper another kind must be estimated than the
// current one before the next region switches to it, so that an iterative
// program does not flap between two kinds of similar cost.
const switchGain = 0.8

// choose returns the kind of the next region over e pages, given the
// kind cur of the last one, and sets c.sample when that region, compared,
// should sample the pages it writes.
func (c *regionCosts) choose(cur regionKind, e int) regionKind {
	c.sample, c.measure = false, false
	if c.plainOnly(e) {
		return kindPlain
	}
	if c.regions == 0 {
		return c.first(cur)
	}
	if cur == kindFaults {
		c.writtenFaults, c.wfKnown, c.compared, c.explore = c.written, true, 0, exploreFirst
		return c.cheapest(cur, e, c.written)
	}
	if c.explore == 0 {
		c.explore = exploreFirst
	}
	c.compared++
	wf := e // nothing tracked yet: any page may be written
	if c.wfKnown {
		wf = max(c.written, c.writtenFaults)
	}
	next := c.cheapest(cur, e, wf)
	hopeful := next != kindFaults && c.cheapest(cur, e, c.written) == kindFaults
	switch {
	case !c.wfKnown && hopeful:
		// Nothing was ever tracked: sample now, not after explore regions.
		c.measure, c.sample, c.compared = true, true, 0
	case c.compared >= c.explore:
		c.measure, c.compared = true, 0
		c.explore = min(2*c.explore, maxExplore)
		c.sample = hopeful
	}
	return next
}

// first returns the kind of the first region, of which nothing is known:
// the kind whose worst case is the least bad. Faults cost at worst a fault
// per page of the extent, and at best nothing; a plain region a copy and a
// compare per page, whatever it writes. So faults are chosen when a fault
// costs at most two copies and compares (the regret of either choice is
// then at most the cost of plain), else plain; before any fault was
// probed, cur.
func (c *regionCosts) first(cur regionKind) regionKind {
	if c.fault.n == 0 {
		return cur
	}
	f, _, cm, _, bulk := c.figures()
	if f <= 2*(bulk+cm) {
		return kindFaults
	}
	return kindPlain
}

// samplePages appends to dst the pages of a sample over e pages, in
// increasing order.
func (c *regionCosts) samplePages(dst []int, e int) []int {
	n := min(sampleSize, e)
	stride := e / n
	rot := c.samples * 37 % stride
	c.samples++
	for i := range n {
		dst = append(dst, i*stride+rot)
	}
	return dst
}

// observeSample records that a region over e pages changed changed pages
// and wrote rewritten of the clean pages of its sample without changing
// them: the pages it wrote are estimated as those it changed and the same
// share of the others.
func (c *regionCosts) observeSample(changed, rewritten, clean, e int) {
	c.writtenFaults, c.wfKnown = changed, true
	if clean > 0 {
		c.writtenFaults += (rewritten*(e-changed) + clean - 1) / clean
	}
}

// cheapest returns the kind of least estimated cost, staying with cur
// unless another is cheaper by switchGain.
func (c *regionCosts) cheapest(cur regionKind, e, wf int) regionKind {
	now, ok := c.estimateW(cur, e, wf)
	if !ok {
		return cur
	}
	best, bestNS := cur, now*switchGain
	for k := range numKinds {
		if ns, _ := c.estimateW(k, e, wf); k != cur && ns < bestNS {
			best, bestNS = k, ns
		}
	}
	return best
}
