//go:build unix

package nodeenv

import "syscall"

// closeOnExec keeps fd from the processes the program starts.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
