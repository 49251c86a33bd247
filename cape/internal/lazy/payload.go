package lazy

import (
	"encoding/binary"
	"fmt"
)

// AppendMerged appends to dst a lazy merged payload: the write notices
// (strictly increasing page indices), then env, the envelope.
func AppendMerged(dst []byte, notices []int, env []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(notices)))
	for _, p := range notices {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p))
	}
	return append(dst, env...)
}

// OpenMerged splits a lazy merged payload into its notices, which must be
// strictly increasing pages below npages, appended to notices[:0], and its
// envelope, which aliases p.
func OpenMerged(p []byte, npages int, notices []int) ([]int, []byte, error) {
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
