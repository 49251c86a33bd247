package arena

import (
	"encoding/binary"
	"slices"
)

// AppendState appends a deterministic encoding of the allocator's state
// (the extent handed out, the live blocks, the free lists) to dst: two
// arenas with equal states hand out the same offsets for the same calls.
// A checkpoint image records it, and a restart restores the image only
// where the allocator is in the same state.
func (a *Arena) AppendState(dst []byte) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	le := binary.LittleEndian
	put := func(v int) { dst = le.AppendUint64(dst, uint64(v)) }
	put(a.top)
	offs := make([]int, 0, len(a.live))
	for off := range a.live {
		offs = append(offs, off)
	}
	slices.Sort(offs)
	put(len(offs))
	for _, off := range offs {
		put(off)
		put(a.live[off])
	}
	classes := make([]int, 0, len(a.small))
	for c, list := range a.small {
		if len(list) > 0 {
			classes = append(classes, c)
		}
	}
	slices.Sort(classes)
	put(len(classes))
	for _, c := range classes {
		put(c)
		put(len(a.small[c]))
		for _, off := range a.small[c] {
			put(off)
		}
	}
	put(len(a.spans))
	for _, s := range a.spans {
		put(s.off)
		put(s.size)
	}
	return dst
}
