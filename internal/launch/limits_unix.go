//go:build unix

package launch

import "syscall"

// fdLimit is this process's descriptor limit (the larger of the soft and
// hard limits: the Go runtime raises the soft one to the hard one).
func fdLimit() (uint64, bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, false
	}
	return max(uint64(lim.Cur), uint64(lim.Max)), true
}
