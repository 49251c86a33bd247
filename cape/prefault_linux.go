package cape

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefault populates the whole pages of b in one call (MADV_POPULATE_WRITE)
// before they are written: a delta's buffer grown for a region's changed
// pages is fresh memory, and a fault per page costs tens of microseconds
// on some machines, against about one to populate it. b's content is left
// as it is (the pages already in memory are not touched); failure (before
// Linux 5.14) leaves the faults to the writes.
func prefault(b []byte) {
	ps := os.Getpagesize()
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + uintptr(ps) - 1) &^ uintptr(ps-1)
	hi := (start + uintptr(len(b))) &^ uintptr(ps-1)
	if len(b) < 16*ps || hi <= lo {
		return
	}
	_, _, _ = unix.RawSyscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_POPULATE_WRITE)
}
