//go:build linux

package uffd

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Open calls userfaultfd(2) with flags (UserModeOnly, unix.O_CLOEXEC,
// unix.O_NONBLOCK) and returns the new descriptor.
func Open(flags int) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, uintptr(flags), 0, 0)
	if errno != 0 {
		return -1, fmt.Errorf("userfaultfd: %w", errno)
	}
	return int(fd), nil
}

// ioctl makes the call raw (without telling the Go scheduler): none of
// these ioctls waits for anything but the kernel's own work, and a
// scheduled system call wakes the runtime's monitor thread (sysmon) out of
// its idle sleep, after which it polls every 20 µs for a millisecond or
// more: dozens of wake-ups and context switches a parallel region, since
// a region makes several of these calls.
func ioctl(fd int, req uintptr, arg unsafe.Pointer) (uintptr, error) {
	r, _, errno := unix.RawSyscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	if errno != 0 {
		return 0, errno
	}
	return r, nil
}

// Handshake performs UFFDIO_API. On success a.Features holds every feature
// the kernel offers and a.Ioctls the ioctls the descriptor accepts.
func Handshake(fd int, a *API) error {
	if _, err := ioctl(fd, ioctlAPI, unsafe.Pointer(a)); err != nil {
		return fmt.Errorf("UFFDIO_API: %w", err)
	}
	return nil
}

// RegisterRange performs UFFDIO_REGISTER.
func RegisterRange(fd int, r *Register) error {
	if _, err := ioctl(fd, ioctlRegister, unsafe.Pointer(r)); err != nil {
		return fmt.Errorf("UFFDIO_REGISTER [%#x, %#x): %w", r.Range.Start, r.Range.Start+r.Range.Len, err)
	}
	return nil
}

// UnregisterRange performs UFFDIO_UNREGISTER.
func UnregisterRange(fd int, r *Range) error {
	if _, err := ioctl(fd, ioctlUnregister, unsafe.Pointer(r)); err != nil {
		return fmt.Errorf("UFFDIO_UNREGISTER [%#x, %#x): %w", r.Start, r.Start+r.Len, err)
	}
	return nil
}

// SetWriteProtect performs UFFDIO_WRITEPROTECT.
func SetWriteProtect(fd int, w *WriteProtect) error {
	if _, err := ioctl(fd, ioctlWriteProtect, unsafe.Pointer(w)); err != nil {
		return fmt.Errorf("UFFDIO_WRITEPROTECT [%#x, %#x): %w", w.Range.Start, w.Range.Start+w.Range.Len, err)
	}
	return nil
}

// Scan performs one PAGEMAP_SCAN ioctl on fd (an open /proc/<pid>/pagemap)
// with arg, whose Vec and VecLen are set from vec, and returns the number of
// regions the kernel filled in. arg.Size is set by Scan.
//
// When the result equals len(vec) the walk may have stopped early; the
// caller continues from vec[len(vec)-1].End, not from arg.WalkEnd, which
// some kernels leave stale.
func Scan(fd int, arg *PMScanArg, vec []PageRegion) (int, error) {
	if len(vec) == 0 {
		return 0, fmt.Errorf("PAGEMAP_SCAN: empty output vector")
	}
	arg.Size = uint64(unsafe.Sizeof(*arg))
	arg.Vec = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	arg.VecLen = uint64(len(vec))
	n, err := ioctl(fd, ioctlPagemapScan, unsafe.Pointer(arg))
	runtime.KeepAlive(vec)
	if err != nil {
		return 0, fmt.Errorf("PAGEMAP_SCAN [%#x, %#x): %w", arg.Start, arg.End, err)
	}
	return int(n), nil
}
