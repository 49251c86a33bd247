//go:build linux

package monitor

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"

	"github.com/cape-go/cape/internal/pagemem"
	"github.com/cape-go/cape/internal/uffd"
	"golang.org/x/sys/unix"
)

// uffdConfig holds the lazy-page settings of a uffd tracker; the zero
// value is the plain write-protection tracker.
type uffdConfig struct {
	// missing: the memory can be registered for missing faults too
	// (lazyTracker.registerMissing).
	missing bool
	// full: no UFFD_USER_MODE_ONLY, so that the kernel's own faults on
	// missing pages reach the helper too.
	full bool
}

func (c uffdConfig) openFlags() int {
	if c.full {
		return 0
	}
	return uffd.UserModeOnly
}

// checkIoctls checks that a registration offers what the settings need.
func (c uffdConfig) checkIoctls(ioctls uint64) error {
	if c.missing && ioctls&(1<<uffd.IoctlBitCopy) == 0 {
		return fmt.Errorf("%w: uffd: the memory does not support UFFDIO_COPY (ioctls %#x)", ErrNotSupported, ioctls)
	}
	return nil
}

// NewLazy returns a uffd Tracker of mem (the arena) that supports lazy
// page transfer. It fails with an error wrapping ErrNotSupported, naming
// the knob, when this kernel or process cannot have one.
func NewLazy(mem []byte, opts Options, lo LazyOptions) (Lazy, error) {
	if opts.PageSize == 0 {
		opts.PageSize = os.Getpagesize()
	}
	if err := checkMemory(mem, opts.PageSize); err != nil {
		return nil, err
	}
	u, cfg, err := newLazyUffd(mem, opts.PageSize, lo)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (Lazy, error) { return nil, errors.Join(err, u.res.release()) }
	tw, fd, err := newSharedTwin(len(mem))
	if err != nil {
		return fail(err)
	}
	u.res.twin = tw
	return &lazyTracker{uffdTracker: u, twinFD: fd, cfg: cfg}, nil
}

// newLazyUffd creates the uffd tracker of a Lazy: for missing faults, with
// a userfaultfd that handles the kernel's faults too unless lo.UserMode
// says otherwise or allows a user-mode-only one where this process may not
// have it. It returns the settings it used.
func newLazyUffd(mem []byte, pageSize int, lo LazyOptions) (*uffdTracker, uffdConfig, error) {
	cfg := uffdConfig{missing: lo.Missing, full: lo.Missing && lo.UserMode != UserModeAlways}
	u, err := newUffdWith(mem, pageSize, cfg)
	if err == nil || !cfg.full || !errors.Is(err, unix.EPERM) {
		return u, cfg, err
	}
	if lo.UserMode == UserModeFallback {
		cfg.full = false
		u, err = newUffdWith(mem, pageSize, cfg)
		return u, cfg, err
	}
	return nil, cfg, fmt.Errorf("%w: lazy pages need a userfaultfd that also handles the kernel's faults: run as root or with CAP_SYS_PTRACE, or set vm.unprivileged_userfaultfd=1: %w",
		ErrNotSupported, err)
}

// lazyTracker is a uffdTracker with the Lazy methods.
type lazyTracker struct {
	*uffdTracker
	twinFD int
	// cfg: the settings the uffd tracker was made with (cfg.missing: the
	// memory may be registered for missing faults).
	cfg uffdConfig
	// registered: the memory is registered for missing faults (from the
	// first Invalidate on).
	registered bool
}

// registerMissing adds missing faults to the memory's registration, once.
// Until then a first touch is the kernel's own zero fill, which costs no
// round trip to the helper (nor needs one running); from then on, every
// access to a page that is not in memory faults to the helper.
func (l *lazyTracker) registerMissing() error {
	if l.registered {
		return nil
	}
	if !l.cfg.missing {
		return fmt.Errorf("%w: invalidating pages needs a tracker made with LazyOptions.Missing", ErrState)
	}
	reg := uffd.Register{Range: uffd.Range{Start: uint64(l.base), Len: uint64(len(l.mem))},
		Mode: uffd.RegisterModeWP | uffd.RegisterModeMissing}
	if err := uffd.RegisterRange(l.res.fd, &reg); err != nil {
		return fmt.Errorf("register the memory for missing faults: %w", err)
	}
	runtime.KeepAlive(l)
	l.registered = true
	return nil
}

// newSharedTwin reserves size bytes of twins in a memory file, and returns
// it mapped and its descriptor (closed by the twin's release).
func newSharedTwin(size int) (*twin, int, error) {
	fd, err := unix.MemfdCreate("cape-twins", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, -1, fmt.Errorf("twins: memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return nil, -1, fmt.Errorf("twins: size the memory file to %d bytes: %w", size, err)
	}
	b, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		unix.Close(fd)
		return nil, -1, fmt.Errorf("twins: map %d bytes: %w", size, err)
	}
	return &twin{buf: b, file: fd, release: func() error {
		return errors.Join(unix.Munmap(b), unix.Close(fd))
	}}, fd, nil
}

func (l *lazyTracker) UffdFD() int { return l.res.fd }

func (l *lazyTracker) TwinFD() int { return l.twinFD }

func (l *lazyTracker) UserModeOnly() bool { return !l.cfg.full }

func (l *lazyTracker) TwinWritesOnly() { l.writesOnly = true }

func (l *lazyTracker) DropTwins() error {
	if err := l.check(); err != nil {
		return err
	}
	if l.res.twin != nil {
		if err := l.releaseTwins(0, len(l.mem)/l.pageSize); err != nil {
			return fmt.Errorf("drop the twins: %w", err)
		}
	}
	clear(l.kept)
	l.twinsGone = true
	return nil
}

func (l *lazyTracker) Invalidate(pages []int) error {
	if err := l.check(); err != nil {
		return err
	}
	if len(pages) == 0 {
		return nil
	}
	if err := l.registerMissing(); err != nil {
		return err
	}
	ps := l.pageSize
	for i := 0; i < len(pages); {
		j := i + 1
		for j < len(pages) && pages[j] == pages[j-1]+1 {
			j++
		}
		lo, hi := pages[i], pages[j-1]+1
		if lo < 0 || hi > len(l.mem)/ps || (i > 0 && lo <= pages[i-1]) {
			return fmt.Errorf("invalidate pages [%d, %d): outside the %d pages or out of order", lo, hi, len(l.mem)/ps)
		}
		l.othersWrite(lo, hi)
		l.populatedSeen.remove(lo, hi) // before the discard, even if it fails
		l.kept.remove(lo, hi)          // its next bytes come from elsewhere
		if err := pagemem.Madvise(l.mem[lo*ps:hi*ps], unix.MADV_DONTNEED); err != nil {
			return fmt.Errorf("invalidate pages [%d, %d): madvise: %w", lo, hi, err)
		}
		// An absent page's twin is never read (copies and comparisons
		// skip the page), and whoever installs the page writes its twin
		// first (the helper) or has the next Start copy it (Install):
		// keeping it would hold a page of memory for every page another
		// node holds.
		if err := l.releaseTwins(lo, hi); err != nil {
			return fmt.Errorf("invalidate pages [%d, %d): release their twins: %w", lo, hi, err)
		}
		// Write-protecting the now empty entries leaves markers: the pages
		// read as not written, and an access faults as missing.
		if err := l.writeProtect(lo*ps, hi*ps, true); err != nil {
			return fmt.Errorf("invalidate pages [%d, %d): %w", lo, hi, err)
		}
		i = j
	}
	return nil
}

func (l *lazyTracker) Install(p int, content []byte) (bool, error) {
	ps := l.pageSize
	if p < 0 || p >= len(l.mem)/ps || len(content) != ps {
		return false, fmt.Errorf("install page %d: outside the memory or not one page (%d bytes)", p, len(content))
	}
	_, err := uffd.Copy(l.res.fd, uint64(l.base.Add(p*ps)), content, 0)
	runtime.KeepAlive(l)
	if errors.Is(err, unix.EEXIST) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("install page %d: %w", p, err)
	}
	// The install is a write between regions: announced (Injector), so
	// that the next Start makes it the twin's content and write-protects
	// it, even under a Clean hint. The caller marks the page present only
	// after this returns.
	if err := l.willWrite(p*ps, ps, nil); err != nil {
		return false, fmt.Errorf("install page %d: %w", p, err)
	}
	return true, nil
}

// check refuses the Lazy methods inside a region and after Close.
func (l *lazyTracker) check() error {
	if l.closed {
		return ErrClosed
	}
	if l.started {
		return fmt.Errorf("%w: lazy page operation inside a region", ErrState)
	}
	return nil
}

func (l *lazyTracker) SetAbsent(absent func(p int) bool) { l.absent = absent }

// copyPresent copies the bytes [from, to) of the memory (page-aligned) into
// the twins, skipping absent and unpopulated pages.
func (u *uffdTracker) copyPresent(from, to int) {
	tw := u.res.twin.buf
	ps := u.pageSize
	u.presentRuns(from/ps, to/ps, func(lo, hi int) {
		u.ownTwins(lo, hi)
		copyParallel(tw[lo*ps:hi*ps], u.mem[lo*ps:hi*ps])
	})
}

// diffPresent is diffParallel over the pages [from, to), skipping absent
// pages (they are not in memory, so they did not change) and unpopulated
// ones (they and their twins are zero: see populated). Where the twins
// are known zero (twinSpans), the pages are compared with zero instead,
// which reads half the bytes, and their twins are left unpopulated: a
// page of a lazy node's twin file costs microseconds to populate, and
// the twins of a region's untouched or unchanged zero pages need none.
func (u *uffdTracker) diffPresent(dst []int, from, to int) []int {
	hole := holeCache{}
	u.presentRuns(from, to, func(lo, hi int) {
		u.extRuns(lo, hi, func(lo, hi int, ext bool) {
			if ext {
				dst = u.diffExt(dst, lo, hi)
				return
			}
			u.twinSpans(&hole, lo, hi, func(a, b int, data bool) {
				if !data {
					dst = diffParallel(dst, u.mem, nil, u.pageSize, a, b)
					return
				}
				u.holdTwins(a, b)
				dst = diffParallel(dst, u.mem, u.res.twin.buf, u.pageSize, a, b)
			})
		})
	})
	return dst
}

// holeCache remembers the last hole of a twins' memory file that spans
// found, for the calls that follow with increasing ranges: a lseek is a
// system call, and a Stop's comparison asks about every run of pages in
// memory. Valid while nothing populates the file: within one comparison.
type holeCache struct{ lo, hi int }

// spans calls fn for the runs [lo, hi) that cover the pages [from, to)
// of pageSize bytes, in increasing order: data is false for a run where
// t's memory file has a hole, which reads as zero, and true elsewhere
// (always for anonymous twins). lseek's SEEK_DATA and SEEK_HOLE tell
// them; a page swapped out is data. Where lseek fails, data. h holds a
// hole found by an earlier call (none if zero) and is updated.
func (t *twin) spans(h *holeCache, from, to, pageSize int, fn func(lo, hi int, data bool)) {
	if t.file < 0 {
		fn(from, to, true)
		return
	}
	for p := from; p < to; {
		if h.lo <= p && p < h.hi {
			e := min(h.hi, to)
			fn(p, e, false)
			p = e
			continue
		}
		off, err := unix.Seek(t.file, int64(p*pageSize), unix.SEEK_DATA)
		switch {
		case errors.Is(err, unix.ENXIO): // no data from p on
			h.lo, h.hi = p, math.MaxInt
			continue
		case err != nil:
			fn(p, to, true)
			return
		}
		if d := int(off) / pageSize; d > p {
			h.lo, h.hi = p, d
			continue
		}
		end, err := unix.Seek(t.file, off, unix.SEEK_HOLE)
		e := to
		if err == nil {
			e = min(int((end+int64(pageSize)-1)/int64(pageSize)), to)
		}
		e = max(e, p+1)
		fn(p, e, true)
		p = e
	}
}

// presentRuns calls fn for each maximal run [lo, hi) of pages in [from, to)
// that are populated (see populated) and not absent, in increasing order.
func (u *uffdTracker) presentRuns(from, to int, fn func(lo, hi int)) {
	u.populated(from, to, func(a, b int) { u.notAbsentRuns(a, b, fn) })
}

// notAbsentRuns calls fn for each maximal run [lo, hi) of pages in [from, to)
// that are not absent, in increasing order.
func (u *uffdTracker) notAbsentRuns(from, to int, fn func(lo, hi int)) {
	if u.absent == nil {
		fn(from, to)
		return
	}
	for p := from; p < to; {
		for p < to && u.absent(p) {
			p++
		}
		lo := p
		for p < to && !u.absent(p) {
			p++
		}
		if lo < p {
			fn(lo, p)
		}
	}
}
