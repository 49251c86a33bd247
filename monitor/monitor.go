package monitor

import (
	"errors"
	"fmt"
	"os"
)

// Tracker reports which pages of one memory range (the arena) were written
// between Start and Stop, and keeps for each page its content as of the last
// Start (its twin), so that a byte-exact delta can be computed.
//
// Lifecycle: New → (Start → [parallel code writes] → Stop → Twin reads)* → Close.
// Between Stop and the next Start the caller may write to memory (injection of
// merged deltas, sequential code); those writes never appear in a later Stop's
// result, and the next Start makes the twins current again.
//
// A Tracker is not safe for concurrent use of its methods, but the memory it
// watches may be written by any number of goroutines and OS threads between
// Start and Stop. Nothing may write the memory while Start or Stop runs.
type Tracker interface {
	// Name is the backend's name as accepted by --monitor.
	Name() string
	// Start marks the entry of a parallel region. extent is the number of
	// bytes, from the beginning of the range, that are in use (a multiple of
	// the page size, at most the range's length); pages past it are not
	// tracked in this region. When Start returns, Twin(p) equals the current
	// content of every page p below extent.
	Start(extent int) error
	// Stop marks the exit of the region and returns, in increasing order, the
	// index of every page that was written between Start and Stop. Backends
	// that are exact return no page that was not written; the complete
	// backend returns every page below extent. The compare backend (and
	// uffd when it adapts to compare) omits pages whose content did not
	// change, which contribute nothing to a delta. The slice is valid until
	// the next Start.
	Stop() ([]int, error)
	// Twin returns the content of page p as of the last Start, or nil if p is
	// not below that Start's extent. It is valid until the next Start and
	// must not be modified.
	Twin(p int) []byte
	// PageSize is the page size the tracker works with.
	PageSize() int
	// Close releases every resource the tracker holds. It does not unmap the
	// tracked memory, which stays readable and writable.
	Close() error
}

// Sentinel errors.
var (
	// ErrNotSupported is returned by New when a backend cannot run on this
	// platform or kernel. It is wrapped with the reason and the knob to turn.
	ErrNotSupported = errors.New("monitor backend not supported")
	// ErrUnknownBackend is returned by New for a name it does not know.
	ErrUnknownBackend = errors.New("unknown monitor backend")
	// ErrInvalidMemory is returned by New when the memory is empty or not
	// made of whole, page-aligned pages.
	ErrInvalidMemory = errors.New("invalid memory range")
	// ErrInvalidExtent is returned by Start for an extent that is negative,
	// not a multiple of the page size or larger than the memory.
	ErrInvalidExtent = errors.New("invalid extent")
	// ErrState is returned for a call out of order: Start twice, Stop
	// without Start.
	ErrState = errors.New("monitor call out of order")
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("monitor closed")
)

// Backend names.
const (
	BackendCompare  = "compare"
	BackendComplete = "complete"
	BackendUffd     = "uffd"
	BackendPtrace   = "ptrace"
	BackendAuto     = "auto"
)

// Options configures New.
type Options struct {
	// PageSize is the tracking granularity; 0 means os.Getpagesize(). The
	// uffd and ptrace backends only accept the system page size.
	PageSize int
	// Notice, if not nil, receives a one-line notice when the auto backend
	// falls back from the default (uffd), saying what it uses and why; the
	// default choice is silent.
	Notice func(string)
	// PtraceBlock is how many pages the ptrace backend saves and unprotects
	// per write fault: the aligned block of PtraceBlock pages around the
	// faulting page, clipped to the extent. 0 means DefaultPtraceBlock;
	// other backends ignore it. RESULTS.md ("Monitors") has the measurements
	// behind the default.
	PtraceBlock int
}

// DefaultPtraceBlock is the ptrace backend's block size when
// Options.PtraceBlock is 0, chosen from the measurements in RESULTS.md
// ("Monitors").
const DefaultPtraceBlock = 16

// maxPtraceBlock bounds Options.PtraceBlock.
const maxPtraceBlock = 1 << 12

// Backends returns the names New accepts, "auto" first.
func Backends() []string {
	return []string{BackendAuto, BackendUffd, BackendCompare, BackendComplete, BackendPtrace}
}

// New returns a Tracker of the named backend watching mem, the whole arena
// mapping. mem must start on a page boundary and be a whole number of pages;
// uffd additionally needs it to be a private anonymous mapping (see doc.go).
// Unknown names return ErrUnknownBackend; backends that cannot run here
// return an error wrapping ErrNotSupported that names what is missing.
func New(backend string, mem []byte, opts Options) (Tracker, error) {
	if opts.PageSize == 0 {
		opts.PageSize = os.Getpagesize()
	}
	if err := checkMemory(mem, opts.PageSize); err != nil {
		return nil, err
	}
	switch backend {
	case BackendCompare:
		return newCompare(mem, opts.PageSize, false)
	case BackendComplete:
		return newCompare(mem, opts.PageSize, true)
	case BackendUffd:
		return newUffd(mem, opts.PageSize)
	case BackendPtrace:
		block := opts.PtraceBlock
		if block == 0 {
			block = DefaultPtraceBlock
		}
		if block < 0 || block > maxPtraceBlock {
			return nil, fmt.Errorf("monitor: ptrace block of %d pages (want 0 for the default, or 1 to %d)", block, maxPtraceBlock)
		}
		return newPtrace(mem, opts.PageSize, block)
	case BackendAuto:
		return newAuto(mem, opts)
	}
	return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknownBackend, backend, Backends())
}

// newAuto picks uffd where the kernel offers it and compare elsewhere.
func newAuto(mem []byte, opts Options) (Tracker, error) {
	notice := opts.Notice
	if notice == nil {
		notice = func(string) {}
	}
	if err := probeUffd(); err != nil {
		notice(fmt.Sprintf("monitor: using compare: uffd unavailable: %v", err))
		return newCompare(mem, opts.PageSize, false)
	}
	t, err := newUffd(mem, opts.PageSize)
	if err != nil {
		notice(fmt.Sprintf("monitor: using compare: uffd on the arena: %v", err))
		return newCompare(mem, opts.PageSize, false)
	}
	return t, nil
}

func checkMemory(mem []byte, pageSize int) error {
	if pageSize <= 0 || pageSize&(pageSize-1) != 0 {
		return fmt.Errorf("%w: page size %d is not a power of two", ErrInvalidMemory, pageSize)
	}
	if len(mem) == 0 {
		return fmt.Errorf("%w: empty", ErrInvalidMemory)
	}
	if len(mem)%pageSize != 0 {
		return fmt.Errorf("%w: length %d is not a multiple of the page size %d", ErrInvalidMemory, len(mem), pageSize)
	}
	if a := addrOf(mem); !a.IsAligned(pageSize) {
		return fmt.Errorf("%w: address %v is not aligned to the page size %d", ErrInvalidMemory, a, pageSize)
	}
	return nil
}

func checkExtent(extent, size, pageSize int) error {
	if extent < 0 || extent > size || extent%pageSize != 0 {
		return fmt.Errorf("%w: %d (want a multiple of %d in [0, %d])", ErrInvalidExtent, extent, pageSize, size)
	}
	return nil
}

// vaddr is a virtual address in this process.
type vaddr uintptr

// IsAligned reports whether a is a multiple of align, a power of two.
func (a vaddr) IsAligned(align int) bool { return uintptr(a)&uintptr(align-1) == 0 }

// Add returns a+n.
func (a vaddr) Add(n int) vaddr { return a + vaddr(n) }

// String formats a in hexadecimal.
func (a vaddr) String() string { return fmt.Sprintf("%#x", uintptr(a)) }
