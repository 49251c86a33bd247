package arena

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Base is the virtual address at which every node maps the arena: 70 TiB,
// far above the Go heap's hint addresses (0x00c000000000 upwards), below the
// area where the kernel places default mmaps, stacks and PIE executables
// (0x550000000000 upwards on x86-64), and outside the ranges the race
// detector reserves for its shadow (0x200000000000–0x21c000000000) and meta
// shadow (0x300000000000–0x400000000000), so `go test -race` works too.
const Base uintptr = 0x460000000000

// DefaultSize is the arena size when none is configured. Untouched pages
// cost nothing (MAP_NORESERVE), so this is address space, not memory.
const DefaultSize = 8 << 30

// SizeEnv names the environment variable that overrides the arena size
// (bytes, or with a K, M, G or T suffix, e.g. "16G").
const SizeEnv = "CAPE_ARENA_SIZE"

// Sentinel errors.
var (
	// ErrExhausted is returned when an allocation does not fit in the arena.
	ErrExhausted = errors.New("arena exhausted")
	// ErrFrozen is returned when allocating inside a parallel region.
	ErrFrozen = errors.New("allocation in the arena inside a parallel region")
	// ErrAddressTaken is returned when the arena's address range is already
	// mapped in this process.
	ErrAddressTaken = errors.New("arena address range already in use")
	// ErrNotSupported is returned where a fixed-address mapping is impossible.
	ErrNotSupported = errors.New("fixed-address arena not supported on this platform")
)

// Arena is the mapped region and its allocator. Its methods are safe for
// concurrent use.
type Arena struct {
	mem      []byte // the whole mapping; len(mem) is the arena size
	pageSize int

	mu sync.Mutex
	// mu protects the following fields.
	used   int  // bytes handed out, from the start of mem
	frozen bool // allocation refused while true
}

// Bytes returns the whole mapping. The slice stays valid until Close.
func (a *Arena) Bytes() []byte { return a.mem }

// Addr returns the address of the first byte of the arena.
func (a *Arena) Addr() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(a.mem))) }

// Size is the arena's size in bytes.
func (a *Arena) Size() int { return len(a.mem) }

// PageSize is the system page size the arena was mapped with.
func (a *Arena) PageSize() int { return a.pageSize }

// Used returns the number of bytes in use rounded up to a whole page: the
// extent a monitor must track.
func (a *Arena) Used() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return roundUp(a.used, a.pageSize)
}

// Freeze refuses (true) or allows (false) allocation.
func (a *Arena) Freeze(frozen bool) {
	a.mu.Lock()
	a.frozen = frozen
	a.mu.Unlock()
}

// Alloc reserves size bytes aligned to align (a power of two) and returns
// their offset from the start of the arena. Allocations of a page or more
// start on a page boundary, so that large arrays do not share pages with
// their neighbours. The memory is zero: it has never been handed out before.
func (a *Arena) Alloc(size, align int) (int, error) {
	if size < 0 {
		return 0, fmt.Errorf("arena: negative allocation size %d", size)
	}
	if align < 16 {
		align = 16
	}
	if size >= a.pageSize && align < a.pageSize {
		align = a.pageSize
	}
	if align&(align-1) != 0 {
		return 0, fmt.Errorf("arena: alignment %d is not a power of two", align)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		return 0, ErrFrozen
	}
	off := roundUp(a.used, align)
	if off > len(a.mem) || size > len(a.mem)-off {
		// Suggest a size that fits this request (twice the arena at least).
		need := max(2*len(a.mem), a.used+size)
		return 0, fmt.Errorf("%w: %d bytes requested, %d of %d in use (set %s, e.g. %s=%dG)",
			ErrExhausted, size, a.used, len(a.mem), SizeEnv, SizeEnv, need>>30+1)
	}
	a.used = off + size
	return off, nil
}

// ParseSize parses a size such as "4096", "512M" or "16G".
func ParseSize(s string) (int, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := 1
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseUint(t, 10, 63)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("arena size %q: want a positive number of bytes with an optional K, M, G or T suffix", s)
	}
	if v > (1<<47)/uint64(mult) {
		return 0, fmt.Errorf("arena size %q is larger than the address space", s)
	}
	return int(v) * mult, nil
}

// SizeFromEnv returns the size configured in SizeEnv, or DefaultSize.
func SizeFromEnv() (int, error) {
	s := os.Getenv(SizeEnv)
	if s == "" {
		return DefaultSize, nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", SizeEnv, err)
	}
	return n, nil
}

func roundUp(n, to int) int { return (n + to - 1) &^ (to - 1) }
