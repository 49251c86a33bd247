//go:build unix

package cape

import (
	"os"
	"syscall"
)

// killSelf ends the node as SIGKILL would from outside.
func killSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// stopSelf freezes the node (SIGSTOP): alive, connections open, silent.
func stopSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
