//go:build linux

package arena

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Map maps an arena of size bytes (rounded up to whole pages) at base.
func Map(base uintptr, size int) (*Arena, error) {
	ps := os.Getpagesize()
	size = roundUp(size, ps)
	if size <= 0 {
		return nil, fmt.Errorf("arena: size %d is not positive", size)
	}
	if base%uintptr(ps) != 0 {
		return nil, fmt.Errorf("arena: base %#x is not page-aligned", base)
	}
	p, err := unix.MmapPtr(-1, 0, addrPointer(base), uintptr(size),
		unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE|unix.MAP_FIXED_NOREPLACE)
	if err != nil {
		if errors.Is(err, unix.EEXIST) {
			return nil, fmt.Errorf("%w: [%#x, %#x) overlaps %s", ErrAddressTaken, base, base+uintptr(size), holder(base, base+uintptr(size)))
		}
		return nil, fmt.Errorf("arena: mmap %d bytes at %#x: %w", size, base, err)
	}
	if uintptr(p) != base {
		// A kernel older than 4.17 treats MAP_FIXED_NOREPLACE as a hint.
		_ = unix.MunmapPtr(p, uintptr(size))
		return nil, fmt.Errorf("%w: the kernel placed the arena at %#x instead of %#x (MAP_FIXED_NOREPLACE needs Linux 4.17)", ErrAddressTaken, uintptr(p), base)
	}
	return newArena(unsafe.Slice((*byte)(p), size), ps), nil
}

// Close unmaps the arena. No slice into it may be used afterwards.
func (a *Arena) Close() error {
	if a.mem == nil {
		return nil
	}
	p, n := unsafe.Pointer(unsafe.SliceData(a.mem)), uintptr(len(a.mem))
	a.mem = nil
	if err := unix.MunmapPtr(p, n); err != nil {
		return fmt.Errorf("arena: munmap: %w", err)
	}
	return nil
}

// holder describes the mappings of /proc/self/maps that overlap [lo, hi).
func holder(lo, hi uintptr) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return "an existing mapping"
	}
	defer f.Close()
	var found []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		a, b, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		s, err1 := strconv.ParseUint(a, 16, 64)
		e, err2 := strconv.ParseUint(b, 16, 64)
		if err1 != nil || err2 != nil || uintptr(e) <= lo || uintptr(s) >= hi {
			continue
		}
		name := "anonymous memory"
		if len(fields) >= 6 {
			name = fields[5]
		}
		found = append(found, fmt.Sprintf("%s-%s (%s)", a, b, name))
	}
	if len(found) == 0 {
		return "an existing mapping"
	}
	return "the mapping " + strings.Join(found, ", ")
}

// addrPointer turns a fixed address that is not Go memory into the
// unsafe.Pointer form mmap takes as a hint.
func addrPointer(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
