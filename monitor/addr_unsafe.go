package monitor

import (
	"sync/atomic"
	"unsafe"
)

// addrOf returns the address of b's first byte. b must not be nil.
func addrOf(b []byte) vaddr { return vaddr(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }

// rewriteWord writes the 8-byte word at b[off:off+8] without changing it:
// a locked add of 0 is a store the compiler cannot drop, so it takes the
// write fault a real store would. off must be 8-byte aligned.
func rewriteWord(b []byte, off int) {
	atomic.AddUint64((*uint64)(unsafe.Pointer(&b[off])), 0)
}
