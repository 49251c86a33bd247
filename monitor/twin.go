package monitor

import "bytes"

// twin is the persistent copy of the tracked memory as of the last Start.
// Its backing store is reserved for the whole memory range at the first
// Start and only costs memory for the pages written into it, that is up to
// the largest extent used so far.
type twin struct {
	buf     []byte
	release func() error
}

// diffPages appends to dst the index of every page in [from, to) whose
// content in mem differs from buf, and returns the extended slice.
func diffPages(dst []int, mem, buf []byte, pageSize, from, to int) []int {
	for p := from; p < to; p++ {
		off := p * pageSize
		if !bytes.Equal(mem[off:off+pageSize], buf[off:off+pageSize]) {
			dst = append(dst, p)
		}
	}
	return dst
}
