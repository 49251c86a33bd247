//go:build !unix

package ckptlog

// LockName is the lock file in the checkpoint directory (unused where
// the system has no flock).
const LockName = "cape.lock"

// Lock does nothing on systems without flock: one job a directory is the
// user's to keep.
func (d *Dir) Lock() (unlock func(), err error) { return func() {}, nil }
