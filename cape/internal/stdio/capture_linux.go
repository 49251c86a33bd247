package stdio

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// memfdOut captures standard output in an anonymous memory file.
type memfdOut struct {
	fd, saved int
}

// NewCapture makes the node's capture of standard output: an anonymous
// memory file (memfd, close-on-exec, never visible in the file system) and
// a duplicate of descriptor 1 to restore.
func NewCapture() (*Capture, error) {
	fd, err := unix.MemfdCreate("cape-region-stdout", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	saved, err := dupAbove(1)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &Capture{sys: &memfdOut{fd: fd, saved: saved}}, nil
}

// redirect, restore and offset run at every region: they use raw system
// calls (dup3 and lseek never block), since the ordinary path wakes the
// runtime's monitor thread when the process had been idle, a thread
// wake-up per region (see transport's raw I/O).

func (m *memfdOut) redirect() error { return rawDup3(m.fd, 1) }

func (m *memfdOut) restore() error { return rawDup3(m.saved, 1) }

func (m *memfdOut) offset() (int64, error) {
	off, _, errno := unix.RawSyscall(unix.SYS_LSEEK, uintptr(m.fd), 0, unix.SEEK_CUR)
	if errno != 0 {
		return 0, errno
	}
	return int64(off), nil
}

func rawDup3(from, to int) error {
	for {
		_, _, errno := unix.RawSyscall(unix.SYS_DUP3, uintptr(from), uintptr(to), 0)
		switch errno {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return errno
	}
}

func (m *memfdOut) readAll(dst []byte, n int64) ([]byte, error) {
	if int64(cap(dst)) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	for got := 0; got < len(dst); {
		k, err := unix.Pread(m.fd, dst[got:], int64(got))
		if err != nil {
			return dst, err
		}
		if k == 0 {
			return dst[:got], nil
		}
		got += k
	}
	return dst, nil
}

func (m *memfdOut) reset() error {
	if err := unix.Ftruncate(m.fd, 0); err != nil {
		return err
	}
	_, err := unix.Seek(m.fd, 0, unix.SEEK_SET)
	return err
}
