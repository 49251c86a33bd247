package monitor

import "bytes"

// twin is the persistent copy of the tracked memory as of the last Start.
// Its backing store is reserved for the whole memory range at the first
// Start and only costs memory for the pages written into it, that is up to
// the largest extent used so far.
type twin struct {
	buf     []byte
	release func() error
	// file: the memory file buf maps (a lazy node's twins, which its
	// helper reads and writes too), or -1; see spans.
	file int
}

// diffPages appends to dst the index of every page in [from, to) whose
// content in mem differs from buf, or from zero if buf is nil, and
// returns the extended slice.
func diffPages(dst []int, mem, buf []byte, pageSize, from, to int) []int {
	zero := zeroPage(pageSize)
	for p := from; p < to; p++ {
		off := p * pageSize
		tw := zero
		if buf != nil {
			tw = buf[off : off+pageSize]
		}
		if !bytes.Equal(mem[off:off+pageSize], tw) {
			dst = append(dst, p)
		}
	}
	return dst
}

// zeros backs zeroPage for the usual page sizes.
var zeros [64 << 10]byte

// zeroPage returns n zero bytes, not to be written.
func zeroPage(n int) []byte {
	if n <= len(zeros) {
		return zeros[:n]
	}
	return make([]byte, n)
}
