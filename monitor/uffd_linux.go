package monitor

import (
	"errors"
	"fmt"
	"github.com/cape-go/cape/internal/pagemem"
	"iter"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/cape-go/cape/internal/uffd"
	"golang.org/x/sys/unix"
)

// uffdTracker is the uffd backend: userfaultfd asynchronous write-protection
// over the arena, read and re-armed with PAGEMAP_SCAN. It is not safe for
// concurrent use.
//
// Outside regions, pages in [0, armed) are registered and write-protected;
// the kernel clears a page's protection at its first write without telling
// anyone (WP_ASYNC), and PAGEMAP_SCAN reports the unprotected ("written")
// pages. Start scans and re-arms everything written since the previous
// Start (the last region and whatever ran between regions), refreshes those
// twins, and arms and copies pages newly covered by a grown extent. Stop
// scans [0, extent) without re-arming, so writes made between regions to
// pages the region already dirtied cost no fault; the next Start re-arms
// them.
//
// Each region is tracked one of three ways (regionKind), chosen at Start by
// the costs the tracker measured on its own recent regions (regionCosts):
// by write faults as above; compared (Start disarms [0, extent), Stop
// compares it with the twins, re-arms it and leaves the changed pages for
// the next Start to refresh); or plain. A plain region is mixed
// (mixed_linux.go): the chunks of pages written recently are unprotected
// and compared at Start and Stop, the others stay armed and are scanned,
// so that a region costs in proportion to the pages written, not to the
// extent. Where the extent is so small that a scan costs more than
// copying and comparing it, a plain region is bare instead: nothing armed
// (armed = 0), Start copies the extent into the twins, Stop compares it.
// The twins stay persistent except in bare regions. A region whose hint
// bounds its writes to a few pages may instead be a snapshot region
// (snap_linux.go), which copies and compares only those.
type uffdTracker struct {
	trackerState
	base vaddr
	res  *uffdResources

	// armed: outside regions, every page in [0, armed) is either
	// write-protected or reported written by PAGEMAP_SCAN; 0 in plain
	// regions and after them.
	armed   int
	twinned int // twin pages below twinned have been written once
	// held: bit p is set once twin page p is populated in this process
	// (holdTwins); fresh counts the pages it populated since the last
	// timed copy or comparison began (see observe).
	held  pageSet
	fresh int
	// chunks: the state of each chunk of chunkPages pages below armed
	// (mixed_linux.go); all cold after a faults or compared region.
	chunks []chunk
	bare   bool // the current or last plain region is bare
	// coldDirty: pages of cold chunks the last mixed Stop reported.
	coldDirty int
	// Buffers of the mixed regions, reused.
	woke, changed, coldPages, hotDirty, known, touchedBuf []int
	// injected: pages announced by WillWrite since the last mixed Start.
	injected []int
	// hint: for the next Start (SetHint). dirtyAt: 1 + the index of the
	// last Start whose stretch since the previous Stop was not proven
	// clean (chunk.synced). startCompared: pages the last Start compared.
	hint          Hint
	dirtyAt       uint32
	startCompared int
	zero          []byte            // a page of zeros
	vec           []uffd.PageRegion // PAGEMAP_SCAN output buffer, reused
	dirty         []int             // result of the last Stop, reused

	mode    uffdMode
	kind    regionKind // of the current or last region
	starts  int        // Starts so far, to pace the fault probes
	costs   regionCosts
	probe   int   // a page known to be populated, for the fault probe; -1 none
	pending []int // pages whose twins the next Start must refresh
	sample  []int // pages write-protected to sample a compared region's writes
	// sampleWritten[i]: sample[i] was written; reused by readSample.
	sampleWritten []bool
	// bounds: the pages the current or last region may write, increasing
	// and disjoint, where its hint bounds its writes (bounded); its Stop
	// scans only those (scanBounds).
	bounds  []pageSpan
	bounded bool
	// deferred: the current or last Start left frozen chunks out of its
	// walk (scanWritten); armSample refreshes the twins of the pages it
	// protects in cold chunks first.
	deferred bool
	// watch: Starts learn the pages changed since the previous Start
	// (WatchBetween), into betw.
	watch bool
	betw  Between
	// absent, if not nil, tells pages that are not in memory and cannot
	// have changed since their twin was right (lazy_linux.go): copies and
	// comparisons skip them, since reading one would fetch it.
	absent func(p int) bool
	// populatedSeen (lazy node): pages a walk of populated found
	// populated. A page stays populated until Invalidate discards it,
	// which removes it, so a short range of them needs no walk.
	populatedSeen pageSet
	// writesOnly: twins are taken only for the chunks a region may write
	// (Lazy.TwinWritesOnly; writesonly_linux.go). taken: the chunks whose
	// twins the current mixed Start took, for its Stop to drop those its
	// region did not write.
	writesOnly bool
	taken      []int
	// snap: the current or last region is a snapshot region
	// (snap_linux.go), which kind does not record: kind stays that of the
	// last region of another kind, whose state snapshot regions keep.
	snap bool
	// twinsGone: DropTwins released the twins; no region may start.
	twinsGone bool
	// External twins (exttwins_linux.go): twinSrc reads a page's copy
	// kept outside the tracker (nil: none); ext: the pages whose twin is
	// that copy; kept: the pages copied since the last Stop (Kept);
	// adopted: the pages this Start made external, whose own twin pages
	// are released.
	twinSrc func(p int) []byte
	ext     pageSet
	kept    pageSet
	adopted []int
	copyBuf []int // refreshHot's scratch
	// wasInjected: the pages announced written (WillWrite, Install)
	// between the last Stop and this Start, increasing.
	wasInjected []int
}

// UffdModeEnv names an environment variable that forces the kind of
// every region a uffd tracker tracks, for diagnosing and testing: faults,
// compare, plain, alternate or snap; adaptive, or anything else, is the
// default, the cheapest kind by measured costs. A writes-only tracker
// (Lazy.TwinWritesOnly) makes every region plain whatever it says.
const UffdModeEnv = "CAPE_UFFD_MODE"

// uffdModes are UffdModeEnv's values.
var uffdModes = map[string]uffdMode{"adaptive": uffdModeAdaptive, "faults": uffdModeFaults, "compare": uffdModeCompare,
	"plain": uffdModePlain, "alternate": uffdModeAlternate, "snap": uffdModeSnap}

// uffdMode selects how regions are tracked; tests force the modes.
type uffdMode int

const (
	uffdModeAdaptive  uffdMode = iota // the cheapest kind by measured costs
	uffdModeFaults                    // always kindFaults
	uffdModeCompare                   // always kindCompare
	uffdModePlain                     // always kindPlain
	uffdModeAlternate                 // cycle through the kinds, to test the transitions
	uffdModeSnap                      // kindPlain, and kindSnap wherever snapFits allows, whatever its size
)

// probeEvery paces the fault probe once its window is full: one Start in
// probeEvery times a fault, so a region pays for it rarely.
const probeEvery = 8

// uffdResources is what Close releases; it is kept apart from the tracker
// so that a cleanup can release it if the tracker is dropped unclosed.
type uffdResources struct {
	fd      int      // the userfaultfd; -1 once closed
	pagemap *os.File // /proc/self/pagemap, kept open for PAGEMAP_SCAN
	pmfd    int      // pagemap's descriptor
	base    vaddr    // registered range
	size    int
	twin    *twin // nil until the first Start
}

func (r *uffdResources) release() error {
	var errs []error
	if r.fd >= 0 {
		rg := uffd.Range{Start: uint64(r.base), Len: uint64(r.size)}
		err := uffd.UnregisterRange(r.fd, &rg)
		// ENOMEM, EINVAL: the memory was unmapped before Close; closing the
		// descriptor below is all that is left to do.
		if err != nil && !errors.Is(err, unix.ENOMEM) && !errors.Is(err, unix.EINVAL) {
			errs = append(errs, err)
		}
		if err := unix.Close(r.fd); err != nil {
			errs = append(errs, fmt.Errorf("close userfaultfd: %w", err))
		}
		r.fd = -1
	}
	if r.pagemap != nil {
		errs = append(errs, r.pagemap.Close())
		r.pagemap = nil
	}
	if r.twin != nil {
		errs = append(errs, r.twin.release())
		r.twin = nil
	}
	return errors.Join(errs...)
}

func newUffd(mem []byte, pageSize int) (Tracker, error) {
	t, err := newUffdWith(mem, pageSize, uffdConfig{})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// newUffdWith is newUffd with the lazy-page settings of cfg (lazy_linux.go).
func newUffdWith(mem []byte, pageSize int, cfg uffdConfig) (*uffdTracker, error) {
	if ps := os.Getpagesize(); pageSize != ps {
		return nil, fmt.Errorf("%w: uffd tracks system pages (%d bytes), not %d", ErrNotSupported, ps, pageSize)
	}
	res := &uffdResources{fd: -1, base: addrOf(mem), size: len(mem)}
	fail := func(err error) (*uffdTracker, error) { return nil, errors.Join(err, res.release()) }

	fd, err := uffd.Open(cfg.openFlags() | unix.O_CLOEXEC | unix.O_NONBLOCK)
	if err != nil {
		return fail(uffdAdvice(err))
	}
	res.fd = fd
	const want = uffd.FeatureWPAsync | uffd.FeatureWPUnpopulated
	api := uffd.API{API: uffd.APIVersion, Features: want}
	if err := uffd.Handshake(fd, &api); err != nil {
		return fail(uffdAdvice(err))
	}
	if api.Features&want != want {
		return fail(fmt.Errorf("%w: uffd: kernel %s lacks UFFD_FEATURE_WP_ASYNC|WP_UNPOPULATED (features %#x); Linux 6.7 or later is needed",
			ErrNotSupported, kernelRelease(), api.Features))
	}
	reg := uffd.Register{Range: uffd.Range{Start: uint64(res.base), Len: uint64(len(mem))}, Mode: uffd.RegisterModeWP}
	if err := uffd.RegisterRange(fd, &reg); err != nil {
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOMEM) {
			return fail(fmt.Errorf("%w: uffd: the memory must be mapped without holes, as one private anonymous mapping (MAP_PRIVATE|MAP_ANONYMOUS): %w",
				ErrNotSupported, err))
		}
		return fail(uffdAdvice(err))
	}
	if reg.Ioctls&(1<<uffd.IoctlBitWriteProtect) == 0 {
		return fail(fmt.Errorf("%w: uffd: the memory does not support UFFDIO_WRITEPROTECT (ioctls %#x)", ErrNotSupported, reg.Ioctls))
	}
	if err := cfg.checkIoctls(reg.Ioctls); err != nil {
		return fail(err)
	}
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return fail(fmt.Errorf("%w: uffd: %w", ErrNotSupported, err))
	}
	res.pagemap = pm
	res.pmfd = int(pm.Fd())

	u := &uffdTracker{
		trackerState: trackerState{mem: mem, pageSize: pageSize},
		base:         res.base,
		res:          res,
		vec:          make([]uffd.PageRegion, 512),
		probe:        -1,
	}
	// PAGEMAP_SCAN arrived with WP_ASYNC in 6.7; check it anyway, on one
	// page, so that a kernel without it fails here and not at Stop.
	if err := u.scan(0, pageSize, false, func(int, int) {}); err != nil {
		return fail(uffdAdvice(err))
	}
	runtime.AddCleanup(u, func(r *uffdResources) { _ = r.release() }, res)
	if m, ok := uffdModes[os.Getenv(UffdModeEnv)]; ok {
		u.mode = m
	}
	return u, nil
}

func (u *uffdTracker) Name() string { return BackendUffd }

func (u *uffdTracker) Start(extent int) error {
	if err := u.checkStart(extent); err != nil {
		return err
	}
	if u.twinsGone {
		return fmt.Errorf("start: %w: the twins were dropped after the last region (DropTwins)", ErrState)
	}
	if u.res.twin == nil {
		tw, err := newTwin(len(u.mem))
		if err != nil {
			return fmt.Errorf("start: %w", err)
		}
		u.res.twin = tw
	}
	h := u.takeHint()
	u.setBounds(h, extent)
	if u.snapFits(h, extent) {
		if err := u.startSnap(h); err != nil {
			return fmt.Errorf("start: %w", err)
		}
		u.enter(extent)
		return nil
	}
	u.snap = false
	u.deferred = false
	u.startBetween()
	probed, err := u.probeFault(extent)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	kind := u.chooseKind(extent / u.pageSize)
	if u.writesOnly {
		// Twins that follow writes are kept current by mixed Starts
		// only, which fill the dropped chunks a region may write and
		// copy the pages the last region wrote (fillDropped,
		// refreshHot), and which alone leave the twins of a grown
		// extent untaken where the region cannot write. A faults or
		// compared Start trusts the twin of every armed page it does
		// not find written: after mixed regions on such a tracker, some
		// are stale, and a distributed homes merge against them loses
		// bytes.
		kind = kindPlain
	}
	switch {
	case kind == kindPlain && u.mode == uffdModeAdaptive && u.costs.plainOnly(extent/u.pageSize):
		u.fillDropped(true)
		err = u.startPlain(extent) // reads the last region's u.bare
		u.bare = true
	case kind == kindPlain:
		err = u.startMixed(extent, h)
		u.bare = false
	default:
		u.fillDropped(true)
		err = u.startArmed(extent, kind)
	}
	c := &u.costs
	if err == nil && probed && kind == kindFaults && (c.cmpNS.n == 0 || c.bulkNS.n == 0 || u.starts%calibrateEvery == 0) {
		u.calibrate(extent)
	}
	if err == nil && kind == kindCompare {
		// No faults in this region: Stop compares instead.
		err = u.writeProtect(0, extent, false)
	}
	if err == nil && kind != kindFaults && u.costs.sample {
		err = u.armSample(extent)
	}
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	u.kind = kind
	u.starts++
	u.betw.finish()
	u.enter(extent)
	return nil
}

// startPlain starts a bare region: it releases whatever is armed and
// copies the extent into the twins. When the costs ask for a measurement, it compares the extent
// with the twins instead and copies the pages that differ: those the last
// region wrote and those written since, whatever kind the last region was,
// which measures the writes between regions.
func (u *uffdTracker) startPlain(extent int) error {
	if err := u.plainBetween(); err != nil {
		return err
	}
	if u.armed > 0 {
		if err := u.writeProtect(0, u.armed, false); err != nil {
			return err
		}
		u.armed = 0
	}
	u.chunks = u.chunks[:0]
	u.costs.hot = extent / u.pageSize
	u.injected = u.injected[:0]
	ps := u.pageSize
	u.pending = u.pending[:0]
	// Twin pages past twinned are touched for the first time, which costs
	// more than the copy or comparison: those are not timed.
	timed := extent / ps
	if extent > u.twinned {
		timed, u.twinned = 0, extent
	}
	u.fresh = 0
	t := time.Now()
	if !u.costs.measure && u.kind == kindPlain && u.bare {
		u.copyPresent(0, extent)
		u.observe(u.costs.observeBulk, time.Since(t), timed)
		return nil
	}
	changed := u.diffPresent(u.pending, 0, extent/ps)
	t1 := time.Now()
	u.observe(u.costs.observeCompare, t1.Sub(t), timed)
	for _, p := range changed {
		u.copyPage(p)
	}
	if timed > 0 {
		u.observe(u.costs.observeCopy, time.Since(t1), len(changed))
	}
	u.costs.between = max(len(changed)-u.costs.written, 0)
	u.pending = changed[:0]
	return nil
}

// startArmed refreshes the twins of everything written since the last
// re-arm and, for kindFaults, re-arms it in the same walk; it arms (for
// kindFaults) and copies the pages a grown extent adds. It counts the
// pages written between the last region and this one.
func (u *uffdTracker) startArmed(extent int, kind regionKind) error {
	ps := u.pageSize
	u.fresh = 0
	t := time.Now()
	scanned := 0
	err := u.scan(0, u.armed, kind == kindFaults, func(lo, hi int) {
		u.copyPresent(lo*ps, hi*ps)
		scanned += hi - lo
		u.probe = lo
		u.betw.add(lo, hi)
	})
	if err != nil {
		return err
	}
	// Pages the last (compared) region changed, re-armed by its Stop. One
	// copy per page: measured faster here than coalescing them into runs,
	// which memmove copies with non-temporal stores.
	for _, p := range u.pending {
		u.betw.add(p, p+1)
		u.copyPage(p)
	}
	u.observe(u.costs.observeCopy, time.Since(t), scanned+len(u.pending))
	switch {
	case u.armed == 0:
		// Nothing was armed (first region, or after plain ones).
	case u.kind == kindFaults:
		// The scan found the last region's pages and those written since.
		u.costs.between = max(scanned-u.costs.written, 0)
	case u.kind == kindCompare:
		u.costs.between = scanned // Stop re-armed the region's pages
	}
	u.pending = u.pending[:0]
	if extent > u.armed {
		if kind == kindFaults {
			if err := u.writeProtect(u.armed, extent, true); err != nil {
				return err
			}
		}
		// Not timed: the first copy into the twin also populates it.
		u.copyPresent(u.armed, extent)
		u.armed = extent
		u.twinned = max(u.twinned, extent)
	}
	// Every page below armed is armed now (a compared region's Stop
	// re-arms them). After a faults or compared Start the chunks are
	// already cold (nothing but a mixed Start wakes them): only those of
	// a grown extent are added, so that a Start costs nothing per chunk of
	// memory left alone.
	if u.starts == 0 || u.kind == kindPlain {
		u.setChunks(u.armed/u.pageSize, chunkCold)
	} else {
		u.addChunks(u.armed/u.pageSize, chunkCold)
	}
	u.costs.hot = 0
	u.injected = u.injected[:0]
	return nil
}

// probeFault times one write fault, every Start until the estimate has
// its samples and then every probeEvery Starts, before the kind of the
// region is chosen. It takes a page known to be populated (else the first
// page of the extent), refreshes its twin (the page may have been written
// since the last Start, and once armed below Start's scan no longer sees
// it), write-protects it, rewrites one word of it with its own value, and
// re-arms it if it is below armed. The memory does not change.
func (u *uffdTracker) probeFault(extent int) (bool, error) {
	p := u.probe
	if p < 0 || p >= extent/u.pageSize {
		p = 0 // the arena's first page is in use, or costs one page
	}
	if extent == 0 || u.mode != uffdModeAdaptive || (u.absent != nil && u.absent(p)) || u.costs.plainOnly(extent/u.pageSize) ||
		(u.costs.fault.n >= len(u.costs.fault.s) && u.starts%probeEvery != 0) {
		return false, nil
	}
	off := p * u.pageSize
	u.ownTwins(p, p+1)
	copy(u.res.twin.buf[off:off+u.pageSize], u.mem[off:off+u.pageSize])
	// Protecting p forgets whether it was written: count it written.
	u.betw.add(p, p+1)
	if err := u.writeProtect(off, off+u.pageSize, true); err != nil {
		return false, err
	}
	t := time.Now()
	rewriteWord(u.mem, off)
	u.costs.observeFault(time.Since(t))
	if !u.armedPage(p) {
		return true, nil
	}
	return true, u.writeProtect(off, off+u.pageSize, true)
}

// calibrateSize is the most bytes calibrate copies and compares; after
// the first time, it runs one Start in calibrateEvery.
const (
	calibrateSize  = 1 << 20
	calibrateEvery = 64
)

// calibrate times a copy and a comparison of a window of the extent with
// its twins, so that a tracker that has only taken faults can tell what
// comparing would cost. After a faults Start the twins of [0, extent)
// equal the memory, so the copy changes nothing and the comparison reads
// every byte, as a comparison of unchanged pages does. One thread: the
// whole-extent copies and comparisons use every core, so the figures err
// toward faults.
func (u *uffdTracker) calibrate(extent int) {
	ps := u.pageSize
	n := min(extent, calibrateSize)
	lo := (u.starts * calibrateSize) % (extent - n + 1)
	lo -= lo % ps
	if n < ps {
		return
	}
	n -= n % ps
	// Only a window of pages in memory: reading an absent page would
	// fetch it, and reading an untouched one would fault it in, which
	// costs more than what is timed. Another Start tries another window.
	whole := false
	u.presentRuns(lo/ps, (lo+n)/ps, func(a, b int) { whole = a == lo/ps && b == (lo+n)/ps })
	if !whole {
		return
	}
	mem, tw := u.mem[lo:lo+n], u.res.twin.buf[lo:lo+n]
	u.ownTwins(lo/u.pageSize, (lo+n)/u.pageSize) // not timed
	t := time.Now()
	copy(tw, mem)
	t1 := time.Now()
	diffPages(nil, mem, tw, u.pageSize, 0, n/u.pageSize)
	u.costs.observeBulk(t1.Sub(t), n/u.pageSize)
	u.costs.observeCompare(time.Since(t1), n/u.pageSize)
}

func (u *uffdTracker) Stop() ([]int, error) {
	if err := u.leave(); err != nil {
		return nil, err
	}
	u.dirty = u.dirty[:0]
	if u.snap {
		u.stopSnap()
		return u.dirty, nil
	}
	n := u.extent / u.pageSize
	switch {
	case u.kind == kindFaults:
		err := u.scanBounds(func(lo, hi int) {
			for p := lo; p < hi; p++ {
				u.dirty = append(u.dirty, p)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("stop: %w", err)
		}
	case u.kind == kindPlain && !u.bare:
		if err := u.stopMixed(); err != nil {
			return nil, fmt.Errorf("stop: %w", err)
		}
		if err := u.readSample(); err != nil {
			return nil, fmt.Errorf("stop: %w", err)
		}
		if err := u.releaseUnwritten(); err != nil {
			return nil, fmt.Errorf("stop: %w", err)
		}
	default:
		u.fresh = 0
		t := time.Now()
		u.dirty = u.diffPresent(u.dirty, 0, n)
		u.observe(u.costs.observeCompare, time.Since(t), n)
		if err := u.readSample(); err != nil {
			return nil, fmt.Errorf("stop: %w", err)
		}
	}
	if u.kind == kindCompare {
		// Re-arm, so that writes made before the next Start are seen by it,
		// and remember what changed: its twins are refreshed by that Start.
		if err := u.writeProtect(0, u.extent, true); err != nil {
			return nil, fmt.Errorf("stop: %w", err)
		}
		u.pending = append(u.pending, u.dirty...)
	}
	u.costs.endRegion(len(u.dirty))
	u.costs.observeSpread(u.dirty)
	if len(u.dirty) > 0 {
		u.probe = u.dirty[len(u.dirty)/2]
	}
	return u.dirty, nil
}

// armSample write-protects the pages of a sample of the extent, in a
// region that is compared: their faults tell readSample how many pages the
// region writes, rewrites of unchanged bytes included. A sampled page the
// program never touched stays unprotected (protectTouched).
func (u *uffdTracker) armSample(extent int) error {
	u.sample = u.costs.samplePages(u.sample[:0], extent/u.pageSize)
	for _, p := range u.sample {
		if u.deferred && p/chunkPages < len(u.chunks) && u.chunks[p/chunkPages].state == chunkCold {
			// Written since its chunk was last walked, perhaps, which
			// protecting it would forget: its twin is made current first.
			u.copyPage(p)
		}
		if err := u.protectTouched(p, p+1); err != nil {
			return err
		}
	}
	return nil
}

// pageRuns yields the runs [lo, hi) of consecutive pages in pages
// (increasing).
func pageRuns(pages []int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(pages); {
			j := i + 1
			for j < len(pages) && pages[j] == pages[j-1]+1 {
				j++
			}
			if !yield(pages[i], pages[j-1]+1) {
				return
			}
			i = j
		}
	}
}

// readSample counts, among the sampled pages the region did not change
// (u.dirty holds those it changed), those it wrote all the same; in a
// plain region it then unprotects those it did not write and that are not
// meant to be armed (a compared one's Stop re-arms them all).
func (u *uffdTracker) readSample() error {
	if len(u.sample) == 0 {
		return nil
	}
	written := u.sampleWritten[:0]
	for range u.sample {
		written = append(written, false)
	}
	u.sampleWritten = written
	// A sampled page outside the bounds of the region's writes was not
	// written (scanBounds).
	err := u.scanBounds(func(lo, hi int) {
		i, _ := slices.BinarySearch(u.sample, lo)
		for ; i < len(u.sample) && u.sample[i] < hi; i++ {
			written[i] = true
		}
	})
	if err != nil {
		return err
	}
	clean, rewritten := 0, 0 // sampled pages not changed; of those, written
	for i, p := range u.sample {
		if _, changed := slices.BinarySearch(u.dirty, p); !changed {
			clean++
			if written[i] {
				rewritten++
			}
		}
	}
	u.costs.observeSample(len(u.dirty), rewritten, clean, u.extent/u.pageSize)
	if u.kind == kindPlain {
		for i, p := range u.sample {
			if written[i] || (!u.bare && u.armedPage(p)) {
				continue
			}
			if err := u.writeProtect(p*u.pageSize, (p+1)*u.pageSize, false); err != nil {
				return err
			}
		}
	}
	u.sample = u.sample[:0]
	return nil
}

// chooseKind decides how the next region over e pages is tracked: by the
// forced mode, or by the kind the measured costs predict cheapest.
func (u *uffdTracker) chooseKind(e int) regionKind {
	switch u.mode {
	case uffdModeFaults:
		return kindFaults
	case uffdModeCompare:
		return kindCompare
	case uffdModePlain, uffdModeSnap:
		return kindPlain
	case uffdModeAlternate:
		return regionKind(u.starts % int(numKinds))
	}
	return u.costs.choose(u.kind, e)
}

// writeProtect arms (wp) or disarms the byte range [from, to), and times
// it for the cost estimates.
func (u *uffdTracker) writeProtect(from, to int, wp bool) error {
	if from >= to {
		return nil
	}
	w := uffd.WriteProtect{Range: uffd.Range{Start: uint64(u.base.Add(from)), Len: uint64(to - from)}}
	if wp {
		w.Mode = uffd.WriteProtectModeWP
	}
	t := time.Now()
	err := uffd.SetWriteProtect(u.res.fd, &w)
	d := time.Since(t)
	u.costs.observeProtect(d, (to-from)/u.pageSize)
	u.costs.observeCall(d, (to-from)/u.pageSize)
	return err
}

func (u *uffdTracker) Twin(p int) []byte {
	off, ok := u.twinOffset(p)
	if !ok || u.res.twin == nil {
		return nil
	}
	if u.ext.has(off / u.pageSize) {
		return u.extTwin(off / u.pageSize)
	}
	return u.twinOrZero(off / u.pageSize)
}

func (u *uffdTracker) Close() error {
	if !u.close() {
		return nil
	}
	return u.res.release()
}

// scan reports, as half-open page-index runs [lo, hi), the written pages in
// the byte range [from, to) of the memory, re-arming them if rearm is set.
func (u *uffdTracker) scan(from, to int, rearm bool, fn func(lo, hi int)) error {
	if from >= to {
		return nil
	}
	arg := uffd.PMScanArg{
		Flags:        uffd.ScanCheckWPAsync,
		CategoryMask: uffd.PageIsWritten,
		ReturnMask:   uffd.PageIsWritten,
	}
	if rearm {
		arg.Flags |= uffd.ScanWPMatching
	}
	start, end := uint64(u.base.Add(from)), uint64(u.base.Add(to))
	for start < end {
		arg.Start, arg.End = start, end
		t := time.Now()
		n, err := uffd.Scan(u.res.pmfd, &arg, u.vec)
		d := time.Since(t)
		u.costs.observeCall(d, int(end-start)/u.pageSize)
		u.costs.observeWalk(d, int(end-start)/u.pageSize)
		if err != nil {
			return err
		}
		for _, r := range u.vec[:n] {
			fn(int(r.Start-uint64(u.base))/u.pageSize, int(r.End-uint64(u.base))/u.pageSize)
		}
		if n < len(u.vec) {
			break
		}
		// The vector is full and the walk may have stopped early. walk_end
		// can be stale, so continue after the last reported region.
		start = u.vec[n-1].End
	}
	return nil
}

// holdTwins populates the twin pages of [lo, hi) that this process has not
// populated yet, in one call per run (MADV_POPULATE_WRITE: well under a
// microsecond a page), before they are compared or copied into: a fault
// per page costs tens of microseconds on some machines. Without the call
// (before Linux 5.14) they fault in as before. Every write of a twin page
// is preceded by a holdTwins of it, so that a page never held is zero
// (twinSpans). External pages are skipped: their twins are read elsewhere
// (ownTwins makes a page's twin its own before it is written).
func (u *uffdTracker) holdTwins(lo, hi int) {
	ps := u.pageSize
	skip := func(p int) bool { return u.held.has(p) || u.ext.has(p) }
	for p := lo; p < hi; {
		for p < hi && skip(p) {
			p++
		}
		q := p
		for q < hi && !skip(q) {
			q++
		}
		if p < q {
			u.held.add(p, q)
			pagemem.Populate(u.res.twin.buf[p*ps : q*ps])
			u.fresh += q - p
		}
		p = q
	}
}

// twinSpans is twin.spans over the pages [from, to) for any twin: for
// anonymous twins, which only this process writes, a page never held
// (holdTwins) is zero. A page of a twin file that this process held is
// data (a hole is punched only where held is cleared: releaseTwins), so a
// range of them needs no lseek.
func (u *uffdTracker) twinSpans(h *holeCache, from, to int, fn func(lo, hi int, data bool)) {
	if u.res.twin.file >= 0 {
		if from < to && u.held.hasAll(from, to) {
			fn(from, to, true)
			return
		}
		u.res.twin.spans(h, from, to, u.pageSize, fn)
		return
	}
	for p := from; p < to; {
		q, data := p+1, u.held.has(p)
		for q < to && u.held.has(q) == data {
			q++
		}
		fn(p, q, data)
		p = q
	}
}

// observe records, with rec (a regionCosts observer), a copy or comparison
// of n pages that took d, begun when fresh was reset; not if it populated
// twin pages: their first touch costs more than the work timed (tens of
// microseconds a page here), and a figure that counts it would make a
// compared region look dear for good.
func (u *uffdTracker) observe(rec func(time.Duration, int), d time.Duration, n int) {
	if u.fresh == 0 {
		rec(d, n)
	}
}

// holdPages is holdTwins over the runs of consecutive pages in pages
// (increasing), but for absent pages, whose twins nothing reads or
// writes (a lazy node releases its twins of them: Invalidate).
func (u *uffdTracker) holdPages(pages []int) {
	for lo, hi := range pageRuns(pages) {
		u.notAbsentRuns(lo, hi, u.holdTwins)
	}
}

// ownPages is holdPages for pages whose twins are about to be written:
// ownTwins, which makes them the tracker's own again, over each run.
func (u *uffdTracker) ownPages(pages []int) {
	for lo, hi := range pageRuns(pages) {
		u.notAbsentRuns(lo, hi, u.ownTwins)
	}
}

// populatedMin is the fewest pages for which populated asks the kernel:
// below it, the walk costs more than comparing the pages.
const populatedMin = 64

// populated calls fn for each run [lo, hi) of pages in [from, to) that may
// be populated, in increasing order: present (the shared zero page
// included), swapped out, or holding a write-protection marker. The other
// pages were never touched (the arena never discards memory, and an absent
// page is the caller's to skip), so they read as zero, and so do their
// twins, which are only ever written from the memory they twin or with
// zeroes: comparing or copying them, which would fault each one in, can be
// skipped. A short range counts as populated, except on a lazy node, where
// reading a missing page is a round trip to its helper, which installs the
// zero pages after it too, unless an earlier walk found all its pages
// populated (populatedSeen); so does what a walk the kernel refuses did not
// reach.
func (u *uffdTracker) populated(from, to int, fn func(lo, hi int)) {
	if to-from < populatedMin && (u.absent == nil || u.populatedSeen.hasAll(from, to)) {
		if from < to {
			fn(from, to)
		}
		return
	}
	u.pagesIn(from, to, populatedMask, fn)
}

// populatedMask holds the PAGEMAP_SCAN categories of a populated page.
const populatedMask = uffd.PageIsPresent | uffd.PageIsSwapped

// pagesIn calls fn for each run [lo, hi) of pages in [from, to) that have
// one of the PAGEMAP_SCAN categories mask, in increasing order. A walk the
// kernel refuses counts as having them from where it stopped.
func (u *uffdTracker) pagesIn(from, to int, mask uint64, fn func(lo, hi int)) {
	arg := uffd.PMScanArg{CategoryAnyofMask: mask, ReturnMask: mask}
	start, end := uint64(u.base.Add(from*u.pageSize)), uint64(u.base.Add(to*u.pageSize))
	lo, hi := from, from // the run being gathered
	add := func(a, b int) {
		if a > hi {
			if lo < hi {
				fn(lo, hi)
			}
			lo = a
		}
		hi = b
	}
	for start < end {
		arg.Start, arg.End = start, end
		n, err := uffd.Scan(u.res.pmfd, &arg, u.vec)
		if err != nil {
			// What the walk did not reach counts as populated.
			add(int(start-uint64(u.base))/u.pageSize, to)
			break
		}
		for _, r := range u.vec[:n] {
			a, b := int(r.Start-uint64(u.base))/u.pageSize, int(r.End-uint64(u.base))/u.pageSize
			if mask == populatedMask && u.absent != nil {
				u.populatedSeen.add(a, b)
			}
			add(a, b)
		}
		if n < len(u.vec) {
			break
		}
		start = u.vec[n-1].End
	}
	if lo < hi {
		fn(lo, hi)
	}
}

// protectTouched write-protects the pages of [lo, hi) that the program
// has touched (present, swapped out or marked), in one call per run of
// them: a sample page. A page never touched reads as written once a write
// populates it, protected or not; protecting it would leave a marker, which populated must count (it
// cannot tell one from a protected page swapped out) and the comparisons
// then read: a fault, and on a lazy node a round trip to its helper, which
// installs zero pages after it.
func (u *uffdTracker) protectTouched(lo, hi int) error {
	var err error
	u.pagesIn(lo, hi, populatedMask, func(a, b int) {
		if err == nil {
			err = u.writeProtect(a*u.pageSize, b*u.pageSize, true)
		}
	})
	return err
}

// uffdAdvice wraps err in ErrNotSupported with the knob that controls it.
func uffdAdvice(err error) error {
	rel := kernelRelease()
	switch {
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%w: uffd: kernel %s has no userfaultfd (CONFIG_USERFAULTFD) or a seccomp filter denies it: %w",
			ErrNotSupported, rel, err)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%w: uffd: userfaultfd is denied: with UFFD_USER_MODE_ONLY (Linux 5.11+) only a seccomp profile or LSM "+
			"denies it (container runtimes' default seccomp profiles do), else set vm.unprivileged_userfaultfd=1; kernel %s: %w",
			ErrNotSupported, rel, err)
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOTTY):
		return fmt.Errorf("%w: uffd: kernel %s lacks asynchronous write-protection or PAGEMAP_SCAN; Linux 6.7 or later is needed: %w",
			ErrNotSupported, rel, err)
	}
	return fmt.Errorf("uffd: %w", err)
}

func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "(unknown)"
	}
	return unix.ByteSliceToString(u.Release[:])
}

// The uffd probe runs once; only conclusive answers are cached.
var uffdProbe struct {
	sync.Mutex
	// Mutex protects the following fields.
	done bool
	err  error
}

// probeUffd reports whether the uffd backend works here, by tracking one
// write to a scratch page.
func probeUffd() error {
	uffdProbe.Lock()
	defer uffdProbe.Unlock()
	if uffdProbe.done {
		return uffdProbe.err
	}
	err := runUffdProbe()
	if err == nil || errors.Is(err, ErrNotSupported) {
		uffdProbe.done, uffdProbe.err = true, err
	}
	return err
}

func runUffdProbe() (err error) {
	ps := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return fmt.Errorf("uffd probe: %w", err)
	}
	defer func() { err = errors.Join(err, unix.Munmap(mem)) }()
	t, err := newUffd(mem, ps)
	if err != nil {
		return err
	}
	t.(*uffdTracker).mode = uffdModeFaults // the probe is of write-protection
	defer func() { err = errors.Join(err, t.Close()) }()
	if err := t.Start(2 * ps); err != nil {
		return err
	}
	mem[ps+1] = 1
	dirty, err := t.Stop()
	if err != nil {
		return err
	}
	if len(dirty) != 1 || dirty[0] != 1 {
		return fmt.Errorf("%w: uffd: kernel %s reports pages %v written, want [1]", ErrNotSupported, kernelRelease(), dirty)
	}
	return nil
}
