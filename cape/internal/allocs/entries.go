package allocs

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Entry is what a checkpoint image records of one live allocation: its
// offset, its number of elements, its element type as Go spells it and
// where the program made it. The layout (pointer words, variables) is not
// recorded: a restart takes it from the type of that name the program
// itself allocates, never from the image.
type Entry struct {
	Off, N      int
	Type, Where string
}

// maxText bounds a type's or a place's spelling in an encoding.
const maxText = 4096

// AppendEntries appends the encoding of the table's live allocations to
// dst: their count, then for each its offset and element count (u64 each),
// its type and where it was made (u32 length, then the bytes), by offset.
func (t *Table) AppendEntries(dst []byte) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, uint64(len(t.all)))
	for _, a := range t.all {
		dst = le.AppendUint64(le.AppendUint64(dst, uint64(a.Off)), uint64(a.N))
		for _, s := range []string{a.Type, a.Where} {
			dst = append(le.AppendUint32(dst, uint32(len(s))), s...)
		}
	}
	return dst
}

// ParseEntries reads AppendEntries' encoding: allocations inside the first
// extent bytes of the arena, by increasing offset, each of at least one
// element.
func ParseEntries(b []byte, extent int) ([]Entry, error) {
	le := binary.LittleEndian
	if len(b) < 8 {
		return nil, fmt.Errorf("allocation table of %d bytes", len(b))
	}
	n := le.Uint64(b)
	b = b[8:]
	if n > uint64(len(b))/24 { // each entry takes 24 bytes at least
		return nil, fmt.Errorf("allocation table of %d entries in %d bytes", n, len(b))
	}
	es := make([]Entry, 0, n)
	for i := range n {
		if len(b) < 24 {
			return nil, fmt.Errorf("allocation %d: the table ends", i)
		}
		off, cnt := le.Uint64(b), le.Uint64(b[8:])
		b = b[16:]
		if off >= uint64(extent) || cnt == 0 || cnt > uint64(extent) {
			return nil, fmt.Errorf("allocation %d: offset %#x, %d elements, in an extent of %#x bytes", i, off, cnt, extent)
		}
		if len(es) > 0 && int(off) <= es[len(es)-1].Off {
			return nil, fmt.Errorf("allocation %d at %#x is not after the previous one", i, off)
		}
		var text [2]string
		for k := range text {
			if len(b) < 4 {
				return nil, fmt.Errorf("allocation %d: the table ends", i)
			}
			l := le.Uint32(b)
			if l > maxText || uint64(l) > uint64(len(b)-4) {
				return nil, fmt.Errorf("allocation %d: a name of %d bytes", i, l)
			}
			text[k] = string(b[4 : 4+l])
			b = b[4+l:]
		}
		es = append(es, Entry{Off: int(off), N: int(cnt), Type: text[0], Where: text[1]})
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the allocation table", len(b))
	}
	return es, nil
}

// Replace makes all, sorted by offset and disjoint, the table's live
// allocations.
func (t *Table) Replace(all []*Allocation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.all = slices.Clone(all)
	t.pointerful = t.pointerful[:0]
	for _, a := range all {
		if len(a.Ptrs) > 0 {
			t.pointerful = append(t.pointerful, a)
		}
	}
}
