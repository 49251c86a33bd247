package delta

import (
	"encoding/binary"
	"math/bits"
)

const (
	lsbs = 0x0101010101010101
	msbs = 0x8080808080808080
)

// Diff appends to d a run for every maximal stretch of bytes where cur and
// twin differ, at arena offset off + index, copying the bytes from cur (cur
// may be live memory). A run never contains a byte where cur equals twin. A
// run that starts where the last run of d ends is coalesced with it.
//
// Calls must come in increasing offset order (typically one per dirty page);
// [Merge], [Delta.Apply] and [Delta.AppendBinary] reject deltas whose runs
// are not sorted. len(cur) should equal len(twin); only the first
// min(len(cur), len(twin)) bytes are compared, cut further so that no run
// would pass offset 2^64-1.
//
// Diff compares eight bytes at a time; [DiffReference] is its byte-by-byte
// twin and gives the same result.
func Diff(d *Delta, off uint64, cur, twin []byte) {
	if d == nil {
		return
	}
	n := min(len(cur), len(twin))
	cur = clip(off, cur[:n])
	n = len(cur)
	twin = twin[:n]
	i := 0
	for i < n {
		// Skip equal bytes: 32, then 8 at a time, then find the first
		// differing byte exactly.
		for i+32 <= n {
			c, t := cur[i:i+32], twin[i:i+32]
			x := (binary.LittleEndian.Uint64(c[0:]) ^ binary.LittleEndian.Uint64(t[0:])) |
				(binary.LittleEndian.Uint64(c[8:]) ^ binary.LittleEndian.Uint64(t[8:])) |
				(binary.LittleEndian.Uint64(c[16:]) ^ binary.LittleEndian.Uint64(t[16:])) |
				(binary.LittleEndian.Uint64(c[24:]) ^ binary.LittleEndian.Uint64(t[24:]))
			if x != 0 {
				break
			}
			i += 32
		}
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(cur[i:i+8]) ^ binary.LittleEndian.Uint64(twin[i:i+8])
			if x != 0 {
				i += bits.TrailingZeros64(x) >> 3
				goto found
			}
			i += 8
		}
		for i < n && cur[i] == twin[i] {
			i++
		}
		if i == n {
			return
		}
	found:
		start := i
		// Find the end: the first byte at or after i where cur equals twin,
		// which is the lowest zero byte of cur^twin. The lowest bit set by
		// the classic has-zero-byte expression is exact.
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(cur[i:i+8]) ^ binary.LittleEndian.Uint64(twin[i:i+8])
			if z := (x - lsbs) &^ x & msbs; z != 0 {
				i += bits.TrailingZeros64(z) >> 3
				goto end
			}
			i += 8
		}
		for i < n && cur[i] != twin[i] {
			i++
		}
	end:
		d.appendRun(off+uint64(start), cur[start:i])
	}
}

// DiffReference is [Diff] written byte by byte: the reference that tests
// and fuzzing compare Diff against. It gives the same result, slower.
func DiffReference(d *Delta, off uint64, cur, twin []byte) {
	if d == nil {
		return
	}
	n := min(len(cur), len(twin))
	cur = clip(off, cur[:n])
	n = len(cur)
	for i := 0; i < n; {
		if cur[i] == twin[i] {
			i++
			continue
		}
		start := i
		for i < n && cur[i] != twin[i] {
			i++
		}
		d.appendRun(off+uint64(start), cur[start:i])
	}
}
