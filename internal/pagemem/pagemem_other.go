//go:build !linux

package pagemem

// Populate does nothing here: see pagemem_linux_unsafe.go.
func Populate([]byte) {}

// Faults: page faults are counted on Linux only.
func Faults(bool) int64 { return -1 }
