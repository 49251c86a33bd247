//go:build !linux

package cape

// prefault does nothing here: see prefault_linux.go.
func prefault([]byte) {}
