package delta

import (
	"bytes"
	"encoding/binary"
)

// Diff appends to d what changed between twin (the content at region entry)
// and cur (the content now) at arena offset off, copying the bytes from cur
// (cur may be live memory). It works at word granularity: it emits every
// 8-byte word aligned on an arena offset that is a multiple of 8 and holds
// at least one changed byte, and joins adjacent such words into one run.
// Words are cut at the ends of cur, so runs stay inside [off, off+len(cur)).
// A run that starts where the last run of d ends is coalesced with it.
//
// A run may therefore carry unchanged bytes (up to 7 on each side of a
// changed byte): every byte of a run equals cur, and every byte where cur
// and twin differ is in a run, so applying the delta to twin gives cur. But
// since a run's unchanged bytes look like writes of the entry value, deltas
// of several nodes made by Diff must be merged with [MergeBase], which tells
// them apart from real writes.
//
// For an int64 array this gives one run per written range instead of one
// per element whose high bytes did not change. When off and len(cur) are
// multiples of 8 (pages), calling Diff page by page gives the same runs as
// one call over the whole range.
//
// Calls must come in increasing offset order (typically one per dirty page);
// [MergeBase], [Delta.Apply] and [Delta.AppendBinary] reject deltas whose runs
// are not sorted. len(cur) should equal len(twin); only the first
// min(len(cur), len(twin)) bytes are compared, cut further so that no run
// would pass offset 2^64-1.
func Diff(d *Delta, off uint64, cur, twin []byte) {
	if d == nil {
		return
	}
	n := min(len(cur), len(twin))
	cur = clip(off, cur[:n])
	n = len(cur)
	twin = twin[:n]

	start := -1 // start of the open run, or -1
	// The head: bytes before the first offset that is a multiple of 8.
	i := min(int(-off&7), n)
	if i > 0 && !bytes.Equal(cur[:i], twin[:i]) {
		start = 0
	}
	for i+8 <= n {
		if start < 0 {
			// Skip equal words: 32 bytes, then 8, at a time.
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
			for i+8 <= n && binary.LittleEndian.Uint64(cur[i:]) == binary.LittleEndian.Uint64(twin[i:]) {
				i += 8
			}
			if i+8 > n {
				break
			}
			start = i
			i += 8
		}
		// Extend the open run over changed words: 32 bytes, then 8, at a
		// time.
		for i+32 <= n {
			c, t := cur[i:i+32], twin[i:i+32]
			if binary.LittleEndian.Uint64(c[0:]) == binary.LittleEndian.Uint64(t[0:]) ||
				binary.LittleEndian.Uint64(c[8:]) == binary.LittleEndian.Uint64(t[8:]) ||
				binary.LittleEndian.Uint64(c[16:]) == binary.LittleEndian.Uint64(t[16:]) ||
				binary.LittleEndian.Uint64(c[24:]) == binary.LittleEndian.Uint64(t[24:]) {
				break
			}
			i += 32
		}
		for i+8 <= n && binary.LittleEndian.Uint64(cur[i:]) != binary.LittleEndian.Uint64(twin[i:]) {
			i += 8
		}
		if i+8 <= n {
			// The word at i is equal: the run ends before it.
			d.appendRun(off+uint64(start), cur[start:i])
			start = -1
			i += 8
		}
	}
	// The tail: bytes after the last whole word.
	end := i
	if i < n && !bytes.Equal(cur[i:], twin[i:]) {
		if start < 0 {
			start = i
		}
		end = n
	}
	if start >= 0 {
		d.appendRun(off+uint64(start), cur[start:end])
	}
}
