//go:build linux

package pagemem

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawMax is the most bytes Madvise makes a raw call for.
const rawMax = 4 << 20

// Madvise is madvise(2) on b, made raw (without telling the Go scheduler)
// for up to rawMax bytes: a scheduled system call wakes the runtime's
// monitor thread out of its idle sleep, after which it polls every 20 µs
// for a millisecond or more (see internal/uffd's ioctl). The advice used
// here waits for nothing but the kernel; a larger range, which may take
// milliseconds, is left to the scheduler. b must be page-aligned.
func Madvise(b []byte, advice int) error {
	switch {
	case len(b) == 0:
		return nil
	case len(b) > rawMax:
		return unix.Madvise(b, advice)
	}
	_, _, errno := unix.RawSyscall(unix.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(advice))
	if errno != 0 {
		return errno
	}
	return nil
}

// Populate populates the whole pages inside b (MADV_POPULATE_WRITE) before
// they are written: on fresh memory one call costs about a microsecond a
// page, against tens of microseconds for a fault each on some machines. b's
// content is unchanged, and pages already in memory cost only the walk.
// Where the kernel has no MADV_POPULATE_WRITE (before Linux 5.14) the
// writes fault as before.
func Populate(b []byte) {
	ps := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo, hi := (start+ps-1)&^(ps-1), (start+uintptr(len(b)))&^(ps-1)
	if hi <= lo {
		return
	}
	_ = Madvise(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), lo-start)), hi-lo), unix.MADV_POPULATE_WRITE)
}

// Mincore sets vec[i]&1 when page i of b (page-aligned) is in memory,
// without faulting any in: how a check tells which pages a call populated
// or dropped, or when another process mapped one.
func Mincore(b, vec []byte) error {
	_, _, errno := unix.RawSyscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		return fmt.Errorf("mincore: %w", errno)
	}
	return nil
}

// Faults is the page faults (minor and major) the process, or with thread
// the calling thread, took so far, or -1 if the kernel does not say: what
// a first touch of memory, or a write the monitor catches, costs
// (getrusage; a page MADV_POPULATE_WRITE fills counts without an
// exception).
func Faults(thread bool) int64 {
	who := unix.RUSAGE_SELF
	if thread {
		who = unix.RUSAGE_THREAD
	}
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return -1
	}
	return ru.Minflt + ru.Majflt
}
