//go:build unix

package cape

import "syscall"

// processFaults is the page faults (minor and major) the process took so
// far, or -1 if the kernel does not say.
func processFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Minflt + ru.Majflt)
}
