//go:build unix

package ckptlog

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// syncData flushes f's data (fdatasync where the system has it).
func syncData(f *os.File) error { return fdatasync(f) }

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// private refuses a file or directory owned by another user or accessible
// to group or others.
func private(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d)", ErrUnsafeDir, path, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		want := "chmod 700"
		if !fi.IsDir() {
			want = "chmod 600"
		}
		return fmt.Errorf("%w: %s has mode %04o: group and others must have no access (%s %s)", ErrUnsafeDir, path, perm, want, path)
	}
	return nil
}
