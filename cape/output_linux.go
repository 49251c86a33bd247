package cape

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// memfdOut captures standard output in an anonymous memory file.
type memfdOut struct {
	fd, saved int
}

// newOutCapture makes the node's capture of standard output: an anonymous
// memory file (memfd, close-on-exec, never visible in the file system) and
// a duplicate of descriptor 1 to restore.
func newOutCapture() (*outCapture, error) {
	fd, err := unix.MemfdCreate("cape-region-stdout", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	saved, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("duplicate descriptor 1: %w", err)
	}
	return &outCapture{sys: &memfdOut{fd: fd, saved: saved}}, nil
}

func (m *memfdOut) redirect() error { return unix.Dup3(m.fd, 1, 0) }

func (m *memfdOut) restore() error { return unix.Dup3(m.saved, 1, 0) }

func (m *memfdOut) offset() (int64, error) { return unix.Seek(m.fd, 0, unix.SEEK_CUR) }

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

// dropStdout makes /dev/null this process's standard output: a slave
// started by a scheduler, whose output the scheduler would print beside
// the master's (cape run drops it itself).
func dropStdout() error {
	fd, err := unix.Open("/dev/null", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /dev/null: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Dup3(fd, 1, 0); err != nil {
		return fmt.Errorf("make /dev/null standard output: %w", err)
	}
	return nil
}
