package arena

import "bytes"

// Diff compares two states of the same arena memory, a and b, of equal
// length (b may be longer: its tail is ignored), and returns the offset of
// the first byte in which they differ, -1 if none, and how many bytes
// differ. cape run --verify compares the parallel and sequential results
// with it.
func Diff(a, b []byte) (first, count int) {
	b = b[:len(a)]
	if bytes.Equal(a, b) {
		return -1, 0
	}
	first = -1
	for i := range a {
		if a[i] != b[i] {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	return first, count
}
