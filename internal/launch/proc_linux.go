package launch

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

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

// resumeGroup continues the node's process group: a stopped (hung) node
// acts on SIGTERM only once continued.
func resumeGroup(p *proc) { signalGroup(p, syscall.SIGCONT) }

// stopped reports whether the node's process is in the stopped state (T),
// e.g. by SIGSTOP or a debugger: alive but unable to answer its peers.
func stopped(p *proc) bool {
	if p.cmd.Process == nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and may
	// itself contain spaces or parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't')
}
