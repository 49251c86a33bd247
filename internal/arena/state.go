package arena

import (
	"encoding/binary"
	"fmt"
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

// SetState makes the allocator's state the one AppendState encoded in b, as
// a restart does when it restores a checkpoint image taken where the program
// had allocated differently than it has when it first reaches the point (a
// buffer made each time around the loop). b is checked before anything
// changes: the extent fits the arena, live blocks and free blocks lie below
// it, none overlap, each small free block is of its size class, and the
// free page ranges are page-aligned, sorted and apart. Bytes the current
// state handed out past the new extent are zeroed, as memory past the
// extent is. The caller writes the image's bytes below the extent.
func (a *Arena) SetState(b []byte) error {
	s, err := a.parseState(b)
	if err != nil {
		return fmt.Errorf("the image's allocator state: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		return fmt.Errorf("set the allocator's state: %w", ErrFrozen)
	}
	if old := roundUp(a.top, a.pageSize); old > roundUp(s.top, a.pageSize) {
		clear(a.mem[roundUp(s.top, a.pageSize):old])
	}
	a.top, a.live, a.small, a.spans = s.top, s.live, s.small, s.spans
	return nil
}

// state is a parsed allocator state.
type state struct {
	top   int
	live  map[int]int
	small map[int][]int
	spans []span
}

// stateReader reads AppendState's words, the first error sticking.
type stateReader struct {
	b   []byte
	err error
}

func (r *stateReader) word(what string, limit int) int {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 8 {
		r.err = fmt.Errorf("ends before %s", what)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	if v > uint64(limit) {
		r.err = fmt.Errorf("%s %d is over %d", what, v, limit)
		return 0
	}
	return int(v)
}

// parseState reads and checks an encoding of AppendState against this
// arena's size and page size (blocks of at least 16 bytes, so counts are
// bounded by the extent).
func (a *Arena) parseState(b []byte) (state, error) {
	r := &stateReader{b: b}
	s := state{top: r.word("extent", len(a.mem)), live: map[int]int{}, small: map[int][]int{}}
	var blocks []span // every block, live or free, to check that none overlap
	in := func(what string, off, size int) {
		if r.err == nil && (size <= 0 || off > s.top || size > s.top-off) {
			r.err = fmt.Errorf("%s [%#x, +%d) is not inside the extent %#x", what, off, size, s.top)
		}
		blocks = append(blocks, span{off, size})
	}
	nlive := r.word("live block count", s.top/16)
	for range nlive {
		off, size := r.word("live block offset", s.top), r.word("live block size", s.top)
		in("live block", off, size)
		if r.err == nil && !a.isBlock(off, size) {
			r.err = fmt.Errorf("live block [%#x, +%d) is neither a small block of its size class nor whole pages", off, size)
		}
		s.live[off] = size
	}
	if r.err == nil && len(s.live) != nlive {
		r.err = fmt.Errorf("a live block listed twice")
	}
	nclass := r.word("size class count", a.pageSize)
	for range nclass {
		c := r.word("size class", a.pageSize)
		if r.err == nil {
			if bs, small := a.blockSize(c, 16); !small || bs != c || len(s.small[c]) > 0 {
				r.err = fmt.Errorf("size class %d is not one, or is listed twice", c)
			}
		}
		k := r.word("free block count", s.top/16)
		for range k {
			off := r.word("free block offset", s.top)
			in("free block", off, c)
			if r.err == nil && off%16 != 0 {
				r.err = fmt.Errorf("free block at %#x is not 16-byte aligned", off)
			}
			s.small[c] = append(s.small[c], off)
		}
	}
	nspan := r.word("free range count", s.top/max(a.pageSize, 1))
	for range nspan {
		off, size := r.word("free range offset", s.top), r.word("free range size", s.top)
		if r.err == nil && (off%a.pageSize != 0 || size%a.pageSize != 0 ||
			len(s.spans) > 0 && s.spans[len(s.spans)-1].off+s.spans[len(s.spans)-1].size >= off) {
			r.err = fmt.Errorf("free range [%#x, +%d) is not page-aligned, or not after the previous one and apart", off, size)
		}
		in("free range", off, size)
		s.spans = append(s.spans, span{off, size})
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes after the state", len(r.b))
	}
	if r.err != nil {
		return state{}, r.err
	}
	slices.SortFunc(blocks, func(x, y span) int { return x.off - y.off })
	for i := 1; i < len(blocks); i++ {
		if p := blocks[i-1]; p.off+p.size > blocks[i].off {
			return state{}, fmt.Errorf("blocks at %#x and %#x overlap", p.off, blocks[i].off)
		}
	}
	return s, nil
}

// isBlock reports whether [off, off+size) is a block Alloc could hand out:
// a small size class at a 16-byte boundary, or whole pages.
func (a *Arena) isBlock(off, size int) bool {
	if c, small := a.blockSize(size, 16); small && c == size {
		return off%16 == 0
	}
	return off%a.pageSize == 0 && size%a.pageSize == 0
}
