package stdio

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The standard descriptors' plumbing: the input stream's (descriptor 0)
// and the output's (descriptor 1, with capture_linux.go).

// IsStream reports whether descriptor 0 is a file, a pipe or a socket,
// which the master streams to the slaves.
func IsStream() (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		if errors.Is(err, unix.EBADF) {
			return false, nil
		}
		return false, fmt.Errorf("fstat: %w", err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFIFO, unix.S_IFSOCK:
		return true, nil
	}
	return false, nil
}

// DevNullStdin makes /dev/null this process's descriptor 0.
func DevNullStdin() error { return devNullOnto(0, unix.O_RDONLY) }

// DropStdout makes /dev/null this process's standard output: a slave
// started by a scheduler, whose output the scheduler would print beside
// the master's (cape run drops it itself).
func DropStdout() error { return devNullOnto(1, unix.O_WRONLY) }

// PipeStdin makes a new pipe's read end this process's descriptor 0 and
// returns the former descriptor 0 (src, to read the real input from; nil
// if there was none) and the pipe's write end. The pipe is blocking, so
// that the program's reads never wait on the poller for a descriptor it
// registered before.
func PipeStdin() (src, w *os.File, err error) {
	old, err := dupAbove(0)
	if err != nil && !errors.Is(err, unix.EBADF) {
		return nil, nil, err
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		if old >= 0 {
			unix.Close(old)
		}
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	err = unix.Dup3(p[0], 0, 0)
	unix.Close(p[0])
	if err != nil {
		unix.Close(p[1])
		if old >= 0 {
			unix.Close(old)
		}
		return nil, nil, fmt.Errorf("make the pipe standard input: %w", err)
	}
	if old >= 0 {
		src = os.NewFile(uintptr(old), "stdin")
	}
	return src, os.NewFile(uintptr(p[1]), "stdin-pipe"), nil
}

// OffStdin returns f, or a duplicate of it on another descriptor when f is
// descriptor 0 (the ssh launcher's lifeline), which the input's set-up
// replaces.
func OffStdin(f *os.File) (*os.File, error) {
	if f == nil || f.Fd() != 0 {
		return f, nil
	}
	fd, err := dupAbove(0)
	if err != nil {
		return nil, fmt.Errorf("move the lifeline off descriptor 0: %w", err)
	}
	return os.NewFile(uintptr(fd), "cape-lifeline"), nil
}

// devNullOnto makes /dev/null, opened with mode (O_RDONLY or O_WRONLY),
// this process's descriptor fd.
func devNullOnto(fd, mode int) error {
	null, err := unix.Open("/dev/null", mode|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /dev/null: %w", err)
	}
	defer unix.Close(null)
	if err := unix.Dup3(null, fd, 0); err != nil {
		return fmt.Errorf("make /dev/null descriptor %d: %w", fd, err)
	}
	return nil
}

// dupAbove duplicates fd onto the lowest free descriptor above the
// standard three, close-on-exec; it returns -1 with its error.
func dupAbove(fd int) (int, error) {
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return -1, fmt.Errorf("duplicate descriptor %d: %w", fd, err)
	}
	return d, nil
}
