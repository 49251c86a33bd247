//go:build !linux

package arena

import (
	"os"
	"unsafe"
)

// Map allocates an arena of size bytes. Outside Linux the arena is not at a
// fixed address: it is page-aligned memory from the Go runtime, which is
// enough for the compare monitor since the arena holds no pointers and
// deltas are expressed as offsets.
func Map(base uintptr, size int) (*Arena, error) {
	ps := os.Getpagesize()
	size = roundUp(size, ps)
	buf := make([]byte, size+ps)
	off := roundUp(int(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))), ps) - int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	return newArena(buf[off:off+size:off+size], ps), nil
}

// Close releases the arena.
func (a *Arena) Close() error {
	a.mem = nil
	return nil
}
