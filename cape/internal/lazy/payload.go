package lazy

import (
	"encoding/binary"
	"errors"
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

// Hello is the payload of a lazyHello message: whether the slave can take
// lazy pages.
func Hello(capable bool) []byte {
	if capable {
		return []byte{1}
	}
	return []byte{0}
}

// errHello refuses a lazyHello payload; the caller names the node.
var errHello = errors.New("malformed lazy transfer answer")

// ParseHello reads a lazyHello payload.
func ParseHello(b []byte) (capable bool, err error) {
	if len(b) != 1 || b[0] > 1 {
		return false, errHello
	}
	return b[0] == 1, nil
}

// Info is the payload of a lazyInfo message: whether the job uses lazy
// transfer and, if so, the page server's port.
func Info(on bool, port int) []byte {
	b := []byte{0, 0, 0}
	if on {
		b[0] = 1
	}
	binary.LittleEndian.PutUint16(b[1:], uint16(port))
	return b
}

// ParseInfo reads a lazyInfo payload.
func ParseInfo(b []byte) (on bool, port int, err error) {
	if len(b) != 3 || b[0] > 1 {
		return false, 0, fmt.Errorf("lazy set-up message of %d bytes, want 3", len(b))
	}
	port = int(binary.LittleEndian.Uint16(b[1:]))
	if b[0] == 1 && port == 0 {
		return false, 0, errors.New("lazy set-up message without a page server port")
	}
	return b[0] == 1, port, nil
}
