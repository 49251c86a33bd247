package ptrace

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Gadget is the machine code that InjectSyscall runs: syscall; int3. The
// tracee must hold a copy in executable memory.
var Gadget = []byte{0x0f, 0x05, 0xcc}

// ErrThreadGone is returned when the thread exited during an injection.
var ErrThreadGone = errors.New("traced thread exited")

// InjectSyscall runs system call nr with args in thread tid, which must be
// in a signal-delivery-stop, and restores the thread's registers, leaving it
// stopped where it was. gadget is the tracee address of a copy of Gadget.
// It returns the call's raw result (a negative errno on failure) and the
// signals that arrived for the thread meanwhile, which the caller must
// deliver when it resumes the thread.
func InjectSyscall(tid int, gadget uintptr, nr uintptr, args ...uintptr) (ret int64, pending []int, err error) {
	var saved unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &saved); err != nil {
		return 0, nil, fmt.Errorf("PTRACE_GETREGS %d: %w", tid, err)
	}
	regs := saved
	regs.Rip = uint64(gadget)
	regs.Rax = uint64(nr)
	regs.Orig_rax = ^uint64(0) // not in a system call: no restart logic
	argRegs := []*uint64{&regs.Rdi, &regs.Rsi, &regs.Rdx, &regs.R10, &regs.R8, &regs.R9}
	for i, a := range args {
		*argRegs[i] = uint64(a)
	}
	if err := unix.PtraceSetRegs(tid, &regs); err != nil {
		return 0, nil, fmt.Errorf("PTRACE_SETREGS %d: %w", tid, err)
	}
	if err := unix.PtraceCont(tid, 0); err != nil {
		return 0, nil, fmt.Errorf("PTRACE_CONT %d: %w", tid, err)
	}
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(tid, &ws, unix.WALL, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, pending, fmt.Errorf("wait %d: %w", tid, err)
		}
		if ws.Exited() || ws.Signaled() {
			return 0, pending, ErrThreadGone
		}
		if !ws.Stopped() {
			continue
		}
		sig, ev := ws.StopSignal(), Event(ws)
		if sig == unix.SIGTRAP && ev == 0 {
			break // the int3 after the system call
		}
		if ev == 0 {
			// A signal arrived before the system call ran: hold it back.
			pending = append(pending, int(sig))
		}
		if err := unix.PtraceCont(tid, 0); err != nil {
			return 0, pending, fmt.Errorf("PTRACE_CONT %d: %w", tid, err)
		}
	}
	if err := unix.PtraceGetRegs(tid, &regs); err != nil {
		return 0, pending, fmt.Errorf("PTRACE_GETREGS %d: %w", tid, err)
	}
	if err := unix.PtraceSetRegs(tid, &saved); err != nil {
		return 0, pending, fmt.Errorf("PTRACE_SETREGS %d: %w", tid, err)
	}
	return int64(regs.Rax), pending, nil
}
