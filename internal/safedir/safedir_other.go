//go:build !linux

package safedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Open opens the directory path, creating it (mode 0700) as opt says. On
// this system it checks only that the last component is a directory and
// not a symbolic link: the walk that checks every component is Linux's.
func Open(path string, opt Options) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if opt.Parents {
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Dir(abs), err)
		}
	}
	if opt.Create {
		if err := os.Mkdir(abs, 0o700); err != nil && !os.IsExist(err) {
			return nil, fmt.Errorf("create %s: %w", abs, err)
		}
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, &UnsafeError{Path: abs, Reason: "is a symbolic link (give the path it points to)"}
	}
	if !fi.IsDir() {
		return nil, &UnsafeError{Path: abs, Reason: "is not a directory"}
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	return &Dir{path: abs, f: f}, nil
}
