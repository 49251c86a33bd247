//go:build unix

package gocmd

import (
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
