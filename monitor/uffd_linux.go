package monitor

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/cape-go/cape/internal/uffd"
	"golang.org/x/sys/unix"
)

// uffdTracker is the uffd backend: userfaultfd asynchronous write-protection
// over the arena, read and re-armed with PAGEMAP_SCAN. It is not safe for
// concurrent use.
//
// Pages in [0, armed) are registered and write-protected; the kernel clears
// a page's protection at its first write without telling anyone (WP_ASYNC),
// and PAGEMAP_SCAN reports the unprotected ("written") pages. Start scans
// and re-arms everything written since the previous Start (the last region
// and whatever ran between regions), refreshes those twins, and arms and
// copies pages newly covered by a grown extent. Stop scans [0, extent)
// without re-arming, so writes made between regions to pages the region
// already dirtied cost no fault; the next Start re-arms them.
type uffdTracker struct {
	mem      []byte
	base     Addr
	pageSize int
	res      *uffdResources

	armed   int  // bytes [0, armed) are write-protect tracked
	extent  int  // extent of the last Start
	started bool // between Start and Stop
	closed  bool
	vec     []uffd.PageRegion // PAGEMAP_SCAN output buffer, reused
	dirty   []int             // result of the last Stop, reused
}

// uffdResources is what Close releases; it is kept apart from the tracker
// so that a cleanup can release it if the tracker is dropped unclosed.
type uffdResources struct {
	fd      int      // the userfaultfd; -1 once closed
	pagemap *os.File // /proc/self/pagemap, kept open for PAGEMAP_SCAN
	pmfd    int      // pagemap's descriptor
	base    Addr     // registered range
	size    int
	twin    *twin // nil until the first Start
}

func (r *uffdResources) release() error {
	var errs []error
	if r.fd >= 0 {
		rg := uffd.Range{Start: uint64(r.base), Len: uint64(r.size)}
		if err := uffd.UnregisterRange(r.fd, &rg); err != nil && !errors.Is(err, unix.ENOMEM) {
			// ENOMEM: the arena was unmapped before the tracker was closed.
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
	if ps := os.Getpagesize(); pageSize != ps {
		return nil, fmt.Errorf("%w: uffd tracks system pages (%d bytes), not %d", ErrNotSupported, ps, pageSize)
	}
	res := &uffdResources{fd: -1, base: addrOf(mem), size: len(mem)}
	fail := func(err error) (Tracker, error) { return nil, errors.Join(err, res.release()) }

	fd, err := uffd.Open(uffd.UserModeOnly | unix.O_CLOEXEC | unix.O_NONBLOCK)
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
			return fail(fmt.Errorf("%w: uffd: the memory must be one private anonymous mapping (mmap MAP_PRIVATE|MAP_ANONYMOUS): %w",
				ErrNotSupported, err))
		}
		return fail(uffdAdvice(err))
	}
	if reg.Ioctls&(1<<uffd.IoctlBitWriteProtect) == 0 {
		return fail(fmt.Errorf("%w: uffd: the memory does not support UFFDIO_WRITEPROTECT (ioctls %#x)", ErrNotSupported, reg.Ioctls))
	}
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return fail(fmt.Errorf("%w: uffd: %w", ErrNotSupported, err))
	}
	res.pagemap = pm
	res.pmfd = int(pm.Fd())

	u := &uffdTracker{
		mem:      mem,
		base:     res.base,
		pageSize: pageSize,
		res:      res,
		vec:      make([]uffd.PageRegion, 512),
	}
	// PAGEMAP_SCAN arrived with WP_ASYNC in 6.7; check it anyway, on one
	// page, so that a kernel without it fails here and not at Stop.
	if err := u.scan(0, pageSize, false, func(int, int) {}); err != nil {
		return fail(uffdAdvice(err))
	}
	runtime.AddCleanup(u, func(r *uffdResources) { _ = r.release() }, res)
	return u, nil
}

func (u *uffdTracker) Name() string  { return BackendUffd }
func (u *uffdTracker) PageSize() int { return u.pageSize }

func (u *uffdTracker) Start(extent int) error {
	switch {
	case u.closed:
		return fmt.Errorf("start: %w", ErrClosed)
	case u.started:
		return fmt.Errorf("start: %w: region already started", ErrState)
	}
	if err := checkExtent(extent, len(u.mem), u.pageSize); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if u.res.twin == nil {
		tw, err := newTwin(len(u.mem))
		if err != nil {
			return fmt.Errorf("start: %w", err)
		}
		u.res.twin = tw
	}
	tw := u.res.twin.buf
	ps := u.pageSize
	// Everything written since the last Start: refresh its twin, re-arm it.
	err := u.scan(0, u.armed, true, func(lo, hi int) {
		copy(tw[lo*ps:hi*ps], u.mem[lo*ps:hi*ps])
	})
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if extent > u.armed {
		wp := uffd.WriteProtect{
			Range: uffd.Range{Start: uint64(u.base.Add(u.armed)), Len: uint64(extent - u.armed)},
			Mode:  uffd.WriteProtectModeWP,
		}
		if err := uffd.SetWriteProtect(u.res.fd, &wp); err != nil {
			return fmt.Errorf("start: %w", err)
		}
		copyParallel(tw[u.armed:extent], u.mem[u.armed:extent])
		u.armed = extent
	}
	u.extent = extent
	u.started = true
	return nil
}

func (u *uffdTracker) Stop() ([]int, error) {
	switch {
	case u.closed:
		return nil, fmt.Errorf("stop: %w", ErrClosed)
	case !u.started:
		return nil, fmt.Errorf("stop: %w: no region started", ErrState)
	}
	u.started = false
	u.dirty = u.dirty[:0]
	err := u.scan(0, u.extent, false, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			u.dirty = append(u.dirty, p)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("stop: %w", err)
	}
	return u.dirty, nil
}

func (u *uffdTracker) Twin(p int) []byte {
	if u.closed || u.res.twin == nil || p < 0 || p >= u.extent/u.pageSize {
		return nil
	}
	off := p * u.pageSize
	return u.res.twin.buf[off : off+u.pageSize : off+u.pageSize]
}

func (u *uffdTracker) Close() error {
	if u.closed {
		return nil
	}
	u.closed = true
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
		n, err := uffd.Scan(u.res.pmfd, &arg, u.vec)
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
