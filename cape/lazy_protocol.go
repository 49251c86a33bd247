package cape

// The messages of lazy transfer (--transfer lazy), beside those of
// internal/wire, whose table numbers their kinds with the others and
// holds the set-up messages' codecs.
//
//	kind       from → to        payload
//	lazyHello  slave → master   u8: 1 if this slave can take lazy pages (its tracker is monitor.Lazy)
//	lazyInfo   master → slave   u8 on (1: lazy transfer for the whole job), u16 page server port (little-endian)
//	merged     master → slave   with lazy transfer on: a lazy merged payload (below) instead of an envelope
//
// Both set-up messages carry Seq 0 and are exchanged once, when the nodes
// join. A lazy merged payload is a u32 count of write notices, the notices
// (u32 page indices, strictly increasing: the pages the slave must
// invalidate), then an envelope (protocol.go) whose delta holds the pushed
// bytes: runs on pages the slave holds, and whole pages that it lacked.
// Page requests travel on the helper's own connection (internal/pager).

import (
	"encoding/binary"
	"fmt"
)

// appendLazyMerged appends a lazy merged payload: the notices, then env.
func appendLazyMerged(dst []byte, notices []int, env []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(notices)))
	for _, p := range notices {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p))
	}
	return append(dst, env...)
}

// openLazyMerged splits a lazy merged payload into its notices, which must
// be strictly increasing pages below npages, and its envelope (aliasing p).
func openLazyMerged(p []byte, npages int, notices []int) ([]int, []byte, error) {
	if len(p) < 4 {
		return nil, nil, fmt.Errorf("lazy payload of %d bytes is too short", len(p))
	}
	n := binary.LittleEndian.Uint32(p)
	if uint64(n) > uint64(npages) || uint64(n)*4 > uint64(len(p)-4) {
		return nil, nil, fmt.Errorf("%d write notices: more than the %d pages or than the payload holds", n, npages)
	}
	notices = notices[:0]
	for i := range int(n) {
		v := binary.LittleEndian.Uint32(p[4+4*i:])
		if uint64(v) >= uint64(npages) || (i > 0 && int(v) <= notices[i-1]) {
			return nil, nil, fmt.Errorf("write notice %d for page %d: outside the %d pages or out of order", i, v, npages)
		}
		notices = append(notices, int(v))
	}
	return notices, p[4+4*int(n):], nil
}
