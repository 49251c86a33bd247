//go:build unix

package gocmd

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ownGroup starts cmd, a go command, in a process group of its own, and
// makes the cancelling of its context interrupt the whole group: the go
// command and the compilers it runs stop, and it removes its work
// directory (a kill of the go command alone left them running). A signal
// from the terminal reaches cape alone, which cancels the context.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 5 * time.Second
}

// processAlive reports whether a process pid exists (it may be another
// user's: only its absence is certain).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// ownedByMe reports whether the file fi describes belongs to this
// process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
