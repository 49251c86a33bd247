//go:build linux

package wake

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// eventfd is the Waker's eventfd (see the package doc), read through the
// runtime's network poller. Its counter is the pending signal.
type eventfd struct {
	fd       uintptr
	f        *os.File
	rc       syscall.RawConn
	buf      uint64
	deadline time.Time // the file's read deadline; zero if none
	readFn   func(fd uintptr) bool
}

// newEventfd returns a non-blocking eventfd in the poller, or nil if one
// cannot be made.
func newEventfd() *eventfd {
	fd, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil
	}
	f := os.NewFile(fd, "cape-waker")
	// A file the poller does not take has no deadlines.
	if f == nil || f.SetReadDeadline(time.Time{}) != nil {
		if f != nil {
			f.Close()
		}
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil
	}
	e := &eventfd{fd: fd, f: f, rc: rc}
	e.readFn = e.readFD
	return e
}

func (e *eventfd) signal() {
	one := uint64(1)
	// Writing to an eventfd cannot block until its counter nears 2⁶⁴.
	syscall.RawSyscall(syscall.SYS_WRITE, e.fd, uintptr(unsafe.Pointer(&one)), 8)
}

func (e *eventfd) clear() {
	syscall.RawSyscall(syscall.SYS_READ, e.fd, uintptr(unsafe.Pointer(&e.buf)), 8)
}

// readFD consumes the counter, or asks the poller to wait for a signal.
func (e *eventfd) readFD(fd uintptr) bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&e.buf)), 8)
	return errno != syscall.EAGAIN && errno != syscall.EINTR
}

func (e *eventfd) wait(due time.Time) {
	now := time.Now()
	switch {
	case due.IsZero():
		if !e.deadline.IsZero() && !e.deadline.After(now) {
			_ = e.f.SetReadDeadline(time.Time{})
			e.deadline = time.Time{}
		}
	case e.deadline.IsZero() || e.deadline.After(due) || !e.deadline.After(now):
		_ = e.f.SetReadDeadline(due)
		e.deadline = due
	}
	// An error is the deadline (or a closed file, which the roster never
	// closes): the caller checks and waits again.
	_ = e.rc.Read(e.readFn)
}
