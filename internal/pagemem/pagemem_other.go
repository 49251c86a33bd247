//go:build !linux

package pagemem

// Populate does nothing here: see pagemem_linux.go.
func Populate([]byte) {}
