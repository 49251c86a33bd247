package main

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// inheritedFiles returns the descriptors from 3 up that this process
// inherited (open, without close-on-exec: the Go runtime's own have it),
// in order, stopping at the first that is not.
func inheritedFiles() []*os.File {
	var out []*os.File
	for fd := 3; ; fd++ {
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			return out
		}
		out = append(out, os.NewFile(uintptr(fd), "fd"+strconv.Itoa(fd)))
	}
}

// childAttr kills the child with this process.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// peakKB is the child's peak resident set size in kB.
func peakKB(st *os.ProcessState) (int64, bool) {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, false
	}
	return ru.Maxrss, true
}

// exitAs returns the child's exit status, or re-raises the signal that
// killed it on this process (128+signal if that returns).
func exitAs(st *os.ProcessState) int {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return st.ExitCode()
	}
	sig := ws.Signal()
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	return 128 + int(sig)
}
