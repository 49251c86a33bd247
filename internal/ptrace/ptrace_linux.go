package ptrace

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Seize attaches to thread tid without stopping it (PTRACE_SEIZE) and sets
// options (unix.PTRACE_O_*) in the same request.
func Seize(tid, options int) error {
	_, _, errno := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(tid), 0, uintptr(options), 0, 0)
	if errno != 0 {
		return fmt.Errorf("PTRACE_SEIZE %d: %w", tid, errno)
	}
	return nil
}

// Listen lets a thread in group-stop wait for SIGCONT while staying traced
// (PTRACE_LISTEN).
func Listen(tid int) error {
	_, _, errno := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_LISTEN, uintptr(tid), 0, 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("PTRACE_LISTEN %d: %w", tid, errno)
	}
	return nil
}

// Threads returns the IDs of pid's threads (from /proc/<pid>/task).
func Threads(pid int) ([]int, error) {
	d, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(d))
	for _, e := range d {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// Siginfo is the start of struct siginfo (include/uapi/asm-generic/siginfo.h)
// for the fault signals, whose union starts with si_addr.
type Siginfo struct {
	Signo int32
	Errno int32
	Code  int32
	_     int32
	Addr  uint64 // si_addr: the faulting address for SIGSEGV and SIGBUS
	_     [104]byte
}

// Event returns the PTRACE_EVENT_* of a ptrace stop (status>>16), or 0 for a
// signal-delivery-stop.
func Event(ws unix.WaitStatus) int { return int(uint32(ws) >> 16) }
