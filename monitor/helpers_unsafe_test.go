//go:build unix

package monitor

import (
	"sync/atomic"
	"unsafe"
)

// sameStore writes the word at b[i:i+8] without changing it: a locked add
// of 0 is a write the compiler cannot drop.
func sameStore(b []byte, i int) { atomic.AddUint64((*uint64)(unsafe.Pointer(&b[i])), 0) }

// int64s views b, 8-byte aligned, as int64s.
func int64s(b []byte) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

// float64s views b, 8-byte aligned, as float64s.
func float64s(b []byte) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}
