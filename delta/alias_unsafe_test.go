package delta

import "unsafe"

// unsafeAddr is the address of b's first element.
func unsafeAddr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
