package cape

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The standard descriptors' plumbing shared by the output capture
// (output_linux.go) and the input stream (stdin_linux.go).

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
