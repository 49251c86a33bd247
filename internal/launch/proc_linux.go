package launch

import "syscall"

// sysProcAttr puts a node in its own process group (so a terminal's Ctrl-C
// reaches only cape, which stops the nodes in order) and kills it if cape
// itself dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func signalGroup(p *proc, sig syscall.Signal) {
	if p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	_ = p.cmd.Process.Signal(sig)
}
