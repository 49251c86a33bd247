package safedir

import (
	"errors"
	"fmt"
	"os"
)

// ErrUnsafe is matched (errors.Is) by every UnsafeError.
var ErrUnsafe = errors.New("unsafe directory")

// UnsafeError says which component of a path Open refused and why.
type UnsafeError struct {
	Path   string // the refused component, as a path from "/"
	Reason string // why, e.g. "is a symbolic link"
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("unsafe directory %s: %s", e.Path, e.Reason)
}

// Is reports whether target is ErrUnsafe.
func (e *UnsafeError) Is(target error) bool { return target == ErrUnsafe }

// Options says what Open may create and what the last component may allow.
type Options struct {
	// Create creates the last component (mode 0700) when it is missing.
	Create bool
	// Parents creates missing components before the last one (mode 0700).
	Parents bool
	// Deny are permission bits the last component must not have; zero
	// means 0o022 (writable by group or others).
	Deny os.FileMode
}

func (o Options) deny() os.FileMode {
	if o.Deny == 0 {
		return 0o022
	}
	return o.Deny
}

// Dir is a directory opened by Open. It owns its file descriptor until
// Close. It is safe for concurrent use.
type Dir struct {
	path string
	f    *os.File
}

// Path returns the directory's absolute, checked path.
func (d *Dir) Path() string { return d.path }

// File returns the open directory, valid until Close.
func (d *Dir) File() *os.File { return d.f }

// Close releases the directory's file descriptor.
func (d *Dir) Close() error { return d.f.Close() }

// Check opens path as Open does and closes it: it reports whether the path
// is safe (creating what opt asks for), for callers that go on by path.
func Check(path string, opt Options) error {
	d, err := Open(path, opt)
	if err != nil {
		return err
	}
	return d.Close()
}
