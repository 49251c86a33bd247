package arena

import (
	"errors"
	"fmt"
	"slices"
	"sort"
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
// (bytes, or with a K, M, G or T suffix, e.g. "16G"). Package nodeenv
// reads it; the arena's errors name it.
const SizeEnv = "CAPE_ARENA_SIZE"

// Sentinel errors.
var (
	// ErrExhausted is returned when an allocation does not fit in the arena.
	ErrExhausted = errors.New("arena exhausted")
	// ErrFrozen is returned when allocating or freeing inside a parallel
	// region.
	ErrFrozen = errors.New("arena frozen inside a parallel region")
	// ErrNotAllocated is returned by Free for an offset that is not the
	// start of a live allocation.
	ErrNotAllocated = errors.New("not the start of a live arena allocation")
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
	top    int           // bytes handed out from the start of mem at least once
	frozen bool          // allocation and freeing refused while true
	live   map[int]int   // offset → block size of every live allocation
	small  map[int][]int // size class → offsets of free blocks, a stack
	spans  []span        // free page-aligned ranges below top, by offset, disjoint, not touching
}

func newArena(mem []byte, pageSize int) *Arena {
	return &Arena{mem: mem, pageSize: pageSize, live: map[int]int{}, small: map[int][]int{}}
}

// span is a free range of whole pages.
type span struct{ off, size int }

// Bytes returns the whole mapping. The slice stays valid until Close.
func (a *Arena) Bytes() []byte { return a.mem }

// Addr returns the address of the first byte of the arena.
func (a *Arena) Addr() uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(a.mem))) }

// Size is the arena's size in bytes.
func (a *Arena) Size() int { return len(a.mem) }

// PageSize is the system page size the arena was mapped with.
func (a *Arena) PageSize() int { return a.pageSize }

// Used returns the number of bytes ever handed out, rounded up to a whole
// page: the extent a monitor must track. Freeing does not lower it.
func (a *Arena) Used() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return roundUp(a.top, a.pageSize)
}

// Freeze refuses (true) or allows (false) allocation and freeing.
func (a *Arena) Freeze(frozen bool) {
	a.mu.Lock()
	a.frozen = frozen
	a.mu.Unlock()
}

// Alloc reserves size bytes aligned to align (a power of two, at most a
// page) and returns their offset from the start of the arena. The memory is
// zero. Allocations of a page or more (and those aligned to more than 16
// bytes) take whole pages, so that large arrays do not share pages with
// their neighbours; smaller ones take a block of their size class. Freed
// blocks are reused: a small one by the next allocation of its class, pages
// by the first free range that fits (lowest offset first). The choice
// depends only on the sequence of Alloc and Free calls, so every node that
// makes the same calls gets the same offsets.
func (a *Arena) Alloc(size, align int) (int, error) {
	if size < 0 {
		return 0, fmt.Errorf("negative allocation size %d", size)
	}
	if align <= 0 || align&(align-1) != 0 || align > a.pageSize {
		return 0, fmt.Errorf("alignment %d is not a power of two up to the page size %d", align, a.pageSize)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		return 0, fmt.Errorf("allocate %d bytes: %w", size, ErrFrozen)
	}
	if size == 0 {
		// Nothing to hold: any aligned offset will do, and none is recorded.
		return roundUp(a.top, max(align, 16)), nil
	}
	block, class := a.blockSize(size, align)
	if class {
		if free := a.small[block]; len(free) > 0 {
			off := free[len(free)-1]
			a.small[block] = free[:len(free)-1]
			return a.reuse(off, block), nil
		}
		return a.bump(block, 16, size)
	}
	for i, s := range a.spans {
		if s.size < block {
			continue
		}
		if s.size == block {
			a.spans = append(a.spans[:i], a.spans[i+1:]...)
		} else {
			a.spans[i] = span{s.off + block, s.size - block}
		}
		return a.reuse(s.off, block), nil
	}
	return a.bump(block, a.pageSize, size)
}

// blockSize is the size of the block that holds an allocation of size
// bytes aligned to align, and whether it is a small size class (false:
// whole pages).
func (a *Arena) blockSize(size, align int) (int, bool) {
	if size < a.pageSize && align <= 16 {
		if c := sizeClass(size); c < a.pageSize {
			return c, true
		}
	}
	return roundUp(size, a.pageSize), false
}

// sizeClass rounds a small size up to its class: multiples of 16 up to
// 128, then four classes per power of two (1, 1.25, 1.5 and 1.75 times it).
func sizeClass(size int) int {
	if size <= 128 {
		return roundUp(max(size, 1), 16)
	}
	p := 1
	for p*2 <= size {
		p *= 2
	}
	step := p / 4
	return roundUp(size, step)
}

// reuse records and zeroes a freed block handed out again. Zeroing is an
// ordinary write made by sequential code between regions, identically on
// every node, so every monitor sees it the way it sees any such write.
func (a *Arena) reuse(off, block int) int {
	clear(a.mem[off : off+block])
	a.live[off] = block
	return off
}

// bump hands out a block past everything handed out so far: memory never
// written, and so zero.
func (a *Arena) bump(block, align, size int) (int, error) {
	off := roundUp(a.top, align)
	if off > len(a.mem) || block > len(a.mem)-off {
		// Suggest a size that fits this request (twice the arena at least).
		need := max(2*len(a.mem), a.top+block)
		return 0, fmt.Errorf("%w: %d bytes requested, %d of %d in use (give cape run a larger arena: --arena-size %dG, or %s=%dG)",
			ErrExhausted, size, a.inUse(), len(a.mem), need>>30+1, SizeEnv, need>>30+1)
	}
	a.top = off + block
	a.live[off] = block
	return off, nil
}

// inUse is the number of bytes in live blocks.
func (a *Arena) inUse() int {
	n := 0
	for _, b := range a.live {
		n += b
	}
	return n
}

// Free returns the block that starts at off, handed out by Alloc, to the
// allocator. It refuses an offset that is not the start of a live block
// (freed already, inside a block, or never allocated) with ErrNotAllocated,
// and refuses to free inside a parallel region with ErrFrozen. The block's
// bytes are left as they are until Alloc hands it out again.
func (a *Arena) Free(off int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		return fmt.Errorf("free offset %#x: %w", off, ErrFrozen)
	}
	block, ok := a.live[off]
	if !ok {
		return fmt.Errorf("free offset %#x: %w", off, ErrNotAllocated)
	}
	delete(a.live, off)
	if c, small := a.blockSize(block, 16); small && c == block {
		a.small[block] = append(a.small[block], off)
		return nil
	}
	a.freeSpan(span{off, block})
	return nil
}

// freeSpan inserts s into the sorted free list, coalescing it with the
// ranges it touches.
func (a *Arena) freeSpan(s span) {
	i := sort.Search(len(a.spans), func(i int) bool { return a.spans[i].off > s.off })
	if i > 0 && a.spans[i-1].off+a.spans[i-1].size == s.off {
		i--
		s = span{a.spans[i].off, a.spans[i].size + s.size}
		a.spans = append(a.spans[:i], a.spans[i+1:]...)
	}
	if i < len(a.spans) && s.off+s.size == a.spans[i].off {
		s.size += a.spans[i].size
		a.spans = append(a.spans[:i], a.spans[i+1:]...)
	}
	a.spans = slices.Insert(a.spans, i, s)
}

// Live reports whether a block starts at off, and its size.
func (a *Arena) Live(off int) (size int, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	size, ok = a.live[off]
	return size, ok
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

func roundUp(n, to int) int { return (n + to - 1) &^ (to - 1) }
