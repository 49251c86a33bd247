//go:build unix

package cape

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// killSelf ends the node as SIGKILL would from outside.
func killSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// stopSelf freezes the node (SIGSTOP): alive, connections open, silent.
func stopSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }

// pauseSelf stops the node (SIGSTOP) for d: a helper shell in the node's
// process group (so that stopping the job ends it too) sends SIGCONT.
func pauseSelf(d time.Duration) {
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("sleep %.3f; kill -CONT %d", d.Seconds(), os.Getpid()))
	if err := cmd.Start(); err != nil {
		return
	}
	go func() { _ = cmd.Wait() }()
	stopSelf()
}
