package cape

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// stdinIsStream reports whether descriptor 0 is a file, a pipe or a
// socket, which the master streams to the slaves (see stdin.go).
func stdinIsStream() (bool, error) {
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

// devNullStdin makes /dev/null this process's descriptor 0.
func devNullStdin() error { return devNullOnto(0, unix.O_RDONLY) }

// pipeStdin makes a new pipe's read end this process's descriptor 0 and
// returns the former descriptor 0 (src, to read the real input from) and
// the pipe's write end. The pipe is blocking, so that the program's reads
// never wait on the poller for a descriptor it registered before.
func pipeStdin() (src, w *os.File, err error) {
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

// offStdin returns f, or a duplicate of it on another descriptor when f is
// descriptor 0 (the ssh launcher's lifeline), which the input's set-up
// replaces.
func offStdin(f *os.File) (*os.File, error) {
	if f == nil || f.Fd() != 0 {
		return f, nil
	}
	fd, err := dupAbove(0)
	if err != nil {
		return nil, fmt.Errorf("move the lifeline off descriptor 0: %w", err)
	}
	return os.NewFile(uintptr(fd), "cape-lifeline"), nil
}
