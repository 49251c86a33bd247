package monitor

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawMadvise is the most bytes madvise makes a raw call for.
const rawMadvise = 4 << 20

// madvise is madvise(2), made raw for up to rawMadvise bytes: the calls
// a region makes are small, and a scheduled call would wake the runtime's
// monitor thread (see internal/uffd's ioctl). Neither advice used here
// waits for anything but the kernel; a large range, which may take
// milliseconds, is left to the scheduler.
func madvise(b []byte, advice int) error {
	switch {
	case len(b) == 0:
		return nil
	case len(b) > rawMadvise:
		return unix.Madvise(b, advice)
	}
	_, _, errno := unix.RawSyscall(unix.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(advice))
	if errno != 0 {
		return errno
	}
	return nil
}
