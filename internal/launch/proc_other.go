//go:build !linux

package launch

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(p *proc, sig syscall.Signal) {
	if p.cmd.Process == nil {
		return
	}
	if sig == syscall.SIGKILL {
		_ = p.cmd.Process.Kill()
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
}

func resumeGroup(p *proc) {}

func stopped(p *proc) bool { return false }
