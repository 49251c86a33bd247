//go:build linux

package ptrace

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// GetSiginfo returns the siginfo of the signal that stopped tid
// (PTRACE_GETSIGINFO).
func GetSiginfo(tid int) (Siginfo, error) {
	var si Siginfo
	_, _, errno := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_GETSIGINFO, uintptr(tid), 0, uintptr(unsafe.Pointer(&si)), 0, 0)
	if errno != 0 {
		return si, fmt.Errorf("PTRACE_GETSIGINFO %d: %w", tid, errno)
	}
	return si, nil
}
