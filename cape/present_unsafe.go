package cape

import "unsafe"

// sliceAddr is the address of s's first element.
func sliceAddr[S ~[]E, E any](s S) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }

// ptrAddr is the address p holds.
func ptrAddr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// sizeOf is the size of a T.
func sizeOf[T any]() uintptr {
	var v T
	return unsafe.Sizeof(v)
}
