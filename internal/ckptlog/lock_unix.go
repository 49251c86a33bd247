//go:build unix

package ckptlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockName is the lock file in the checkpoint directory: the job that
// writes the directory's log holds it locked and names its process in it.
const LockName = "cape.lock"

// Lock takes the directory for one job's log (an exclusive flock of
// LockName, held by this process until unlock or its exit) and writes this
// process's id in the lock file. A directory another job holds is refused,
// naming that job's process: two jobs writing one log would each replace
// the other's records.
func (d *Dir) Lock() (unlock func(), err error) {
	name := filepath.Join(d.path, LockName)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the checkpoint directory: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnsafeDir, name)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another process"
			if b, err := os.ReadFile(name); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					who = fmt.Sprintf("process %d", pid)
				}
			}
			return nil, fmt.Errorf("%s is in use by another job (%s holds %s): wait for it to end, or give another --checkpoint directory", d.path, who, LockName)
		}
		return nil, fmt.Errorf("lock the checkpoint directory: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // who holds it, for the message above only
	}
	return func() { f.Close() }, nil
}
