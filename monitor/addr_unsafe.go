package monitor

import "unsafe"

// addrOf returns the address of b's first byte. b must not be nil.
func addrOf(b []byte) vaddr { return vaddr(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }
