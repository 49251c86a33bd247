//go:build !linux

package pager

import "errors"

// ErrNotSupported is returned by Start where there is no userfaultfd.
var ErrNotSupported = errors.New("lazy pages need Linux's userfaultfd")

// Helper is a slave's running helper process (never, on this system).
type Helper struct{}

// Start returns ErrNotSupported.
func Start(Config) (*Helper, error) { return nil, ErrNotSupported }

// Ready returns ErrNotSupported.
func (*Helper) Ready() error { return ErrNotSupported }

// SetVersion does nothing.
func (*Helper) SetVersion(uint64) {}

// MarkInvalid does nothing.
func (*Helper) MarkInvalid(int) {}

// SetHolder does nothing.
func (*Helper) SetHolder(int, int) {}

// ClearInvalid does nothing.
func (*Helper) ClearInvalid(int) {}

// Invalid reports false.
func (*Helper) Invalid(int) bool { return false }

// TakeFetched returns 0.
func (*Helper) TakeFetched() int { return 0 }

// Done returns nil.
func (*Helper) Done() <-chan struct{} { return nil }

// Err returns nil.
func (*Helper) Err() error { return nil }

// Close does nothing.
func (*Helper) Close() error { return nil }

// Port reports that there is no helper here.
func (*Helper) Port() (int, error) { return 0, ErrNotSupported }

// Connect reports that there is no helper here.
func (*Helper) Connect([]string) error { return ErrNotSupported }

// Snapshot returns nil.
func (*Helper) Snapshot() []byte { return nil }

// BeginUpdate does nothing.
func (*Helper) BeginUpdate() {}

// OwnPage returns nil.
func (*Helper) OwnPage(int, uint64) []byte { return nil }

// DropTwins does nothing.
func (*Helper) DropTwins() error { return nil }

// DropSnapshot does nothing.
func (*Helper) DropSnapshot() error { return nil }

// SetHeld does nothing.
func (*Helper) SetHeld(int, bool) {}

// Readers returns 0.
func (*Helper) Readers(int) uint64 { return 0 }

// TakeServed returns 0.
func (*Helper) TakeServed() int { return 0 }

// Pending returns nil.
func (*Helper) Pending() []byte { return nil }

// Replicate reports that there is no helper here.
func (*Helper) Replicate(uint64, int, bool, [][2]int) (int, error) { return -1, ErrNotSupported }

// SetReplica does nothing.
func (*Helper) SetReplica(int, int) {}

// Holder returns 0.
func (*Helper) Holder(int) int { return 0 }

// Held reports false.
func (*Helper) Held(int) bool { return false }

// ReplicaPage reports that there is no helper here.
func (*Helper) ReplicaPage(int, int, uint64, int) ([]byte, error) { return nil, ErrNotSupported }

// DropReplica reports that there is no helper here.
func (*Helper) DropReplica(int) error { return ErrNotSupported }

// KeepServing is Linux's.
func (*Helper) KeepServing(int) error { return ErrNotSupported }

// Abandon is Linux's.
func (*Helper) Abandon() error { return nil }

// KeepOwn is Linux's.
func (*Helper) KeepOwn(uint64, int, int, []byte) {}
