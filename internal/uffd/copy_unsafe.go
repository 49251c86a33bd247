//go:build linux

package uffd

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Copy performs UFFDIO_COPY of src to dst in the registered range of fd,
// which may belong to another process: it installs len(src) bytes of pages
// that are missing there, waking the threads waiting on them unless mode
// has CopyModeDontWake. It returns the bytes copied. It stops at the first
// page of the range that exists: if that is the first page, it returns
// unix.EEXIST; otherwise (the kernel's -EAGAIN with a positive count) it
// returns the bytes copied before it and no error. unix.EAGAIN with nothing
// copied means the address space was changing: the caller may retry.
func Copy(fd int, dst uint64, src []byte, mode uint64) (int, error) {
	if len(src) == 0 {
		return 0, nil
	}
	a := CopyArg{Dst: dst, Src: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(src)))), Len: uint64(len(src)), Mode: mode}
	_, err := ioctl(fd, ioctlCopy, unsafe.Pointer(&a))
	runtime.KeepAlive(src)
	n := 0
	if a.Copy > 0 {
		n = int(a.Copy)
	}
	if errors.Is(err, unix.EAGAIN) && n > 0 {
		return n, nil
	}
	if err != nil {
		return n, fmt.Errorf("UFFDIO_COPY [%#x, %#x): %w", dst, dst+uint64(len(src)), err)
	}
	return n, nil
}

// Wake performs UFFDIO_WAKE: the threads waiting on a fault in r resume.
func Wake(fd int, r *Range) error {
	if _, err := ioctl(fd, ioctlWake, unsafe.Pointer(r)); err != nil {
		return fmt.Errorf("UFFDIO_WAKE [%#x, %#x): %w", r.Start, r.Start+r.Len, err)
	}
	return nil
}

// ReadMsgs reads the pending messages of fd into msgs and returns how many
// it read. On a non-blocking descriptor with nothing pending it returns 0
// and unix.EAGAIN.
func ReadMsgs(fd int, msgs []Msg) (int, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(msgs))), len(msgs)*MsgSize)
	for {
		n, err := unix.Read(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n%MsgSize != 0 {
			return 0, fmt.Errorf("userfaultfd: read %d bytes, not a whole number of %d-byte messages", n, MsgSize)
		}
		return n / MsgSize, nil
	}
}
