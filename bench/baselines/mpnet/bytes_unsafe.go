package mpnet

import "unsafe"

// Bytes views s as its bytes in memory (little-endian on the platforms
// these baselines are meant for), without copying. The result aliases s.
func Bytes(s []float64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8)
}
