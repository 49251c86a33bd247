package ckptlog

import (
	"io/fs"
	"os"
)

func syncData(f *os.File) error { return f.Sync() }

// syncDir is a no-op: Windows has no directory fsync.
func syncDir(string) error { return nil }

// private checks nothing on Windows, where the directory's ACL decides.
func private(string, fs.FileInfo) error { return nil }
