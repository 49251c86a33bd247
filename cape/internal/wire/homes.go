package wire

import (
	"encoding/binary"
	"fmt"
)

// The payloads of distributed homes (--transfer homes, docs/homes.md).
// Pages written in a region stay at their writers: a node's notice names
// the pages it wrote and carries bytes only for the pages it may share
// with other writers; the master's release names, for every page written,
// the node that now serves it.
//
//	notice   node → master  page ranges written, then pushes, then a shared section, then an envelope (values, no delta)
//	collect  master → node  pages whose shared section the master still needs
//	runs     node → master  a shared section, then an envelope (no values)
//	release  master → node  homes (page ranges, each with its holder), then the pages pushed to the
//	                        node (pushes, no readers), then an envelope (the merged runs of pages
//	                        the node co-wrote, less its own bytes; values)
//
// A shared section is: u32 count, count ascending u32 pages, then each
// page's bytes at the region's entry (count × page size), then the
// node's runs on those pages as a delta inside the envelope that follows.

// PageRange is the pages [Lo, Hi) of the arena.
type PageRange struct{ Lo, Hi int }

// Home is a range of pages written in a region and the node that serves
// them from its end on; Multi says several nodes wrote them (each writer
// then holds the merged page, the holder being the lowest).
type Home struct {
	PageRange
	Holder int
	Multi  bool
}

// multiBit marks a Home's holder word.
const multiBit = 1 << 31

// AppendNoticeHead appends a notice's first fields: the pages of arena the
// node had in use at the region's start (every node's are the same where
// their sequential code did the same), then the ranges it wrote.
func AppendNoticeHead(dst []byte, extent int, written []PageRange) []byte {
	return AppendRanges(AppendExtent(dst, extent), written)
}

// ParseNoticeHead reads AppendNoticeHead's fields, the ranges of pages
// below npages appended to out[:0], and returns the rest of p. The extent
// is not checked: the caller compares it with its own.
func ParseNoticeHead(p []byte, npages int, out []PageRange) (extent int, written []PageRange, rest []byte, err error) {
	extent, p, err = SplitExtent(p)
	if err != nil {
		return 0, nil, nil, err
	}
	written, rest, err = ParseRanges(p, npages, out)
	return extent, written, rest, err
}

// AppendRanges appends ranges (ascending, disjoint, non-empty).
func AppendRanges(dst []byte, ranges []PageRange) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(ranges)))
	for _, r := range ranges {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(r.Lo))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(r.Hi))
	}
	return dst
}

// ParseRanges reads ranges of pages below npages, appended to out[:0]:
// ascending, disjoint and non-empty. It returns the rest of p.
func ParseRanges(p []byte, npages int, out []PageRange) ([]PageRange, []byte, error) {
	n, p, err := count(p, 8, npages, "page ranges")
	if err != nil {
		return nil, nil, err
	}
	out = out[:0]
	prev := 0
	for i := range n {
		lo, hi := int(binary.LittleEndian.Uint32(p[8*i:])), int(binary.LittleEndian.Uint32(p[8*i+4:]))
		if lo < prev || lo >= hi || hi > npages {
			return nil, nil, fmt.Errorf("page range %d [%d, %d): empty, out of order or past the %d pages", i, lo, hi, npages)
		}
		out = append(out, PageRange{lo, hi})
		prev = hi
	}
	return out, p[8*n:], nil
}

// count reads a u32 count of entries of size bytes each, at most max, that
// p must hold after it.
func count(p []byte, size, max int, what string) (int, []byte, error) {
	if len(p) < 4 {
		return 0, nil, fmt.Errorf("%s: %d bytes, too short", what, len(p))
	}
	n := binary.LittleEndian.Uint32(p)
	if uint64(n) > uint64(max) || uint64(n)*uint64(size) > uint64(len(p)-4) {
		return 0, nil, fmt.Errorf("%d %s: more than %d or than the payload holds", n, what, max)
	}
	return int(n), p[4:], nil
}

// AppendHomes appends homes (ascending, disjoint, non-empty ranges).
func AppendHomes(dst []byte, homes []Home) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(homes)))
	for _, h := range homes {
		w := uint32(h.Holder)
		if h.Multi {
			w |= multiBit
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Lo))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Hi))
		dst = binary.LittleEndian.AppendUint32(dst, w)
	}
	return dst
}

// ParseHomes reads homes of pages below npages whose holders are ranks
// below size, appended to out[:0]. It returns the rest of p.
func ParseHomes(p []byte, npages, size int, out []Home) ([]Home, []byte, error) {
	n, p, err := count(p, 12, npages, "homes")
	if err != nil {
		return nil, nil, err
	}
	out = out[:0]
	prev := 0
	for i := range n {
		b := p[12*i:]
		lo, hi := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
		w := binary.LittleEndian.Uint32(b[8:])
		holder := int(w &^ multiBit)
		if lo < prev || lo >= hi || hi > npages || holder >= size {
			return nil, nil, fmt.Errorf("home %d: pages [%d, %d) at node %d: empty, out of order, past the %d pages or no such node", i, lo, hi, holder, npages)
		}
		out = append(out, Home{PageRange{lo, hi}, holder, w&multiBit != 0})
		prev = hi
	}
	return out, p[12*n:], nil
}

// AppendPageList appends ascending pages (a collect payload).
func AppendPageList(dst []byte, pages []int) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(pages)))
	for _, pg := range pages {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(pg))
	}
	return dst
}

// ParsePageList reads strictly ascending pages below npages, appended to
// out[:0], and returns the rest of p.
func ParsePageList(p []byte, npages int, out []int) ([]int, []byte, error) {
	n, p, err := count(p, 4, npages, "pages")
	if err != nil {
		return nil, nil, err
	}
	out = out[:0]
	for i := range n {
		pg := int(binary.LittleEndian.Uint32(p[4*i:]))
		if pg >= npages || (i > 0 && pg <= out[i-1]) {
			return nil, nil, fmt.Errorf("page %d (%d): past the %d pages or out of order", i, pg, npages)
		}
		out = append(out, pg)
	}
	return out, p[4*n:], nil
}

// AppendShared appends a shared section's pages and their entry bytes,
// entry(p) giving page p's (pageSize bytes each).
func AppendShared(dst []byte, pages []int, entry func(p int) []byte) []byte {
	dst = AppendPageList(dst, pages)
	for _, pg := range pages {
		dst = append(dst, entry(pg)...)
	}
	return dst
}

// ParseShared reads a shared section of pages below npages of pageSize
// bytes: the pages (appended to out[:0]), their entry bytes (aliasing p,
// pageSize each in the pages' order) and the rest of p.
func ParseShared(p []byte, npages, pageSize int, out []int) (pages []int, entries, rest []byte, err error) {
	pages, p, err = ParsePageList(p, npages, out)
	if err != nil {
		return nil, nil, nil, err
	}
	need := uint64(len(pages)) * uint64(pageSize)
	if need > uint64(len(p)) {
		return nil, nil, nil, fmt.Errorf("%d shared pages need %d entry bytes, the payload holds %d", len(pages), need, len(p))
	}
	return pages, p[:need], p[need:], nil
}

// Push is a page a node sends with its notice for others that read it
// after the same region's last instance: its holder's bytes at the
// region's end, and the nodes to forward them to.
type Push struct {
	Page    int
	Readers []int
	Data    []byte // one page
}

// AppendPushes appends pushes (ascending pages): u32 count, then each
// page's u32 index, u32 reader count, the readers (u32 each) and its bytes.
func AppendPushes(dst []byte, pushes []Push) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(pushes)))
	for _, p := range pushes {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Page))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p.Readers)))
		for _, r := range p.Readers {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(r))
		}
		dst = append(dst, p.Data...)
	}
	return dst
}

// ParsePushes reads pushes of pages below npages of pageSize bytes, for
// readers below size (strictly ascending, at least one), appended to
// out[:0]; the data alias p. It returns the rest of p.
func ParsePushes(p []byte, npages, pageSize, size int, out []Push) ([]Push, []byte, error) {
	n, p, err := count(p, 8+pageSize, npages, "pushed pages")
	if err != nil {
		return nil, nil, err
	}
	out = out[:0]
	for i := range n {
		if len(p) < 8 {
			return nil, nil, fmt.Errorf("pushed page %d: truncated", i)
		}
		pg, k := int(binary.LittleEndian.Uint32(p)), uint64(binary.LittleEndian.Uint32(p[4:]))
		if pg >= npages || (i > 0 && pg <= out[i-1].Page) || k == 0 || k > uint64(size) || 8+4*k+uint64(pageSize) > uint64(len(p)) {
			return nil, nil, fmt.Errorf("pushed page %d (%d, %d readers): past the %d pages, out of order, no readers or truncated", i, pg, k, npages)
		}
		readers := make([]int, k)
		for j := range readers {
			readers[j] = int(binary.LittleEndian.Uint32(p[8+4*j:]))
			if readers[j] >= size || (j > 0 && readers[j] <= readers[j-1]) {
				return nil, nil, fmt.Errorf("pushed page %d: reader %d of a %d-node job, or out of order", pg, readers[j], size)
			}
		}
		at := 8 + 4*int(k)
		out = append(out, Push{Page: pg, Readers: readers, Data: p[at : at+pageSize]})
		p = p[at+pageSize:]
	}
	return out, p, nil
}

// AppendPagePushes appends pages pushed to one node (a release's; the
// readers are not sent): u32 count, then each page's u32 index and bytes.
func AppendPagePushes(dst []byte, pushes []Push) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(pushes)))
	for _, p := range pushes {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Page))
		dst = append(dst, p.Data...)
	}
	return dst
}

// ParsePagePushes reads a release's pushed pages (strictly ascending,
// below npages, pageSize bytes each, aliasing p), appended to out[:0], and
// returns the rest of p.
func ParsePagePushes(p []byte, npages, pageSize int, out []Push) ([]Push, []byte, error) {
	n, p, err := count(p, 4+pageSize, npages, "pushed pages")
	if err != nil {
		return nil, nil, err
	}
	out = out[:0]
	for i := range n {
		b := p[i*(4+pageSize):]
		pg := int(binary.LittleEndian.Uint32(b))
		if pg >= npages || (i > 0 && pg <= out[i-1].Page) {
			return nil, nil, fmt.Errorf("pushed page %d (%d): past the %d pages or out of order", i, pg, npages)
		}
		out = append(out, Push{Page: pg, Data: b[4 : 4+pageSize]})
	}
	return out, p[n*(4+pageSize):], nil
}
