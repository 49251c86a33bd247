package wire

import (
	"fmt"
	"slices"

	"github.com/cape-go/cape/delta"
)

// NoticeMsg is a notice payload.
type NoticeMsg struct {
	Extent  int // pages of arena in use at the region's start
	Written []PageRange
	Pushes  []Push
	Shared  SharedMsg
}

func (m NoticeMsg) Append(dst []byte) ([]byte, error) {
	return m.Shared.Append(AppendPushes(AppendNoticeHead(dst, m.Extent, m.Written), m.Pushes))
}

// SharedMsg is a shared section and the envelope after it (a runs payload).
type SharedMsg struct {
	Pages   []int
	Entries []byte // the pages' entry bytes, in order
	Env     Envelope
}

func (m SharedMsg) Append(dst []byte) ([]byte, error) {
	dst = AppendPageList(dst, m.Pages)
	dst = append(dst, m.Entries...)
	return m.Env.Append(dst)
}

// PageList is a collect payload.
type PageList []int

func (l PageList) Append(dst []byte) ([]byte, error) { return AppendPageList(dst, l), nil }

// ReleaseMsg is a release payload.
type ReleaseMsg struct {
	Homes  []Home
	Pushes []Push // Readers nil
	Env    Envelope
}

func (m ReleaseMsg) Append(dst []byte) ([]byte, error) {
	return m.Env.Append(AppendPagePushes(AppendHomes(dst, m.Homes), m.Pushes))
}

func decodeNotice(p []byte, lim *Limits) (Payload, error) {
	extent, written, rest, err := ParseNoticeHead(p, lim.Pages, nil)
	if err != nil {
		return nil, err
	}
	pushes, rest, err := ParsePushes(rest, lim.Pages, lim.PageSize, lim.Nodes, nil)
	if err != nil {
		return nil, err
	}
	sh, err := decodeShared(rest, lim)
	if err != nil {
		return nil, err
	}
	return NoticeMsg{Extent: extent, Written: written, Pushes: pushes, Shared: sh}, nil
}

func decodeRuns(p []byte, lim *Limits) (Payload, error) {
	return decodeShared(p, lim)
}

// decodeShared reads a shared section and its envelope, whose runs must lie
// on the section's pages.
func decodeShared(p []byte, lim *Limits) (SharedMsg, error) {
	if lim.PageSize <= 0 {
		return SharedMsg{}, fmt.Errorf("shared pages without a page size")
	}
	pages, entries, rest, err := ParseShared(p, lim.Pages, lim.PageSize, nil)
	if err != nil {
		return SharedMsg{}, err
	}
	vals, d, err := OpenEnvelope(rest, lim.Delta)
	if err != nil {
		return SharedMsg{}, err
	}
	if err := RunsOnPages(d.Runs, pages, lim.PageSize); err != nil {
		return SharedMsg{}, err
	}
	return SharedMsg{Pages: pages, Entries: entries, Env: Envelope{Values: vals, Delta: d}}, nil
}

func decodeCollect(p []byte, lim *Limits) (Payload, error) {
	pages, rest, err := ParsePageList(p, lim.Pages, nil)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("%d bytes after the pages", len(rest))
	}
	if err != nil {
		return nil, err
	}
	return PageList(pages), nil
}

func decodeRelease(p []byte, lim *Limits) (Payload, error) {
	homes, rest, err := ParseHomes(p, lim.Pages, lim.Nodes, nil)
	if err != nil {
		return nil, err
	}
	pushes, rest, err := ParsePagePushes(rest, lim.Pages, lim.PageSize, nil)
	if err != nil {
		return nil, err
	}
	vals, d, err := OpenEnvelope(rest, lim.Delta)
	if err != nil {
		return nil, err
	}
	return ReleaseMsg{Homes: homes, Pushes: pushes, Env: Envelope{Values: vals, Delta: d}}, nil
}

// RunsOnPages checks that every run lies on the pages listed (ascending)
// of pageSize bytes.
func RunsOnPages(runs []delta.Run, pages []int, pageSize int) error {
	for _, r := range runs {
		if len(r.Data) == 0 {
			continue
		}
		lo, hi := int(r.Off/uint64(pageSize)), int((r.End()-1)/uint64(pageSize))
		for pg := lo; pg <= hi; pg++ {
			if _, ok := slices.BinarySearch(pages, pg); !ok {
				return fmt.Errorf("run [%#x, %#x) on page %d, which is not among the shared pages", r.Off, r.End(), pg)
			}
		}
	}
	return nil
}
