package homes

// The runtime's use of distributed homes (package cape's --transfer homes)
// is a subset of the directory above, computed per region from the nodes'
// notices alone: every page written is homed at its writer, or at the
// master where several wrote it (their runs are merged), and every node is told the
// holder of every page written, so it drops a stale copy and fetches the
// page from its holder on its next touch. These functions are that
// subset's bookkeeping; Dir remains the model of the whole protocol
// (pushes, replicas, recovery), which the runtime does not run yet.

import (
	"slices"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
)

// AppendPageRanges appends to out the ranges of pages (ascending).
func AppendPageRanges(out []wire.PageRange, pages []int) []wire.PageRange {
	base := len(out)
	for _, p := range pages {
		if k := len(out); k > base && out[k-1].Hi == p {
			out[k-1].Hi++
			continue
		}
		out = append(out, wire.PageRange{Lo: p, Hi: p + 1})
	}
	return out
}

// Contains reports whether page p is in ranges (ascending, disjoint).
func Contains(ranges []wire.PageRange, p int) bool {
	_, ok := search(ranges, p, func(r wire.PageRange) wire.PageRange { return r })
	return ok
}

// Find returns the home of hl (ascending, disjoint) that page p is in.
func Find(hl []wire.Home, p int) (wire.Home, bool) {
	i, ok := search(hl, p, func(h wire.Home) wire.PageRange { return h.PageRange })
	if !ok {
		return wire.Home{}, false
	}
	return hl[i], true
}

// search finds by binary search the element of xs (ascending, disjoint
// ranges, as rng reads them) whose range holds page p.
func search[T any](xs []T, p int, rng func(T) wire.PageRange) (int, bool) {
	return slices.BinarySearchFunc(xs, p, func(x T, p int) int {
		switch r := rng(x); {
		case r.Hi <= p:
			return -1
		case r.Lo > p:
			return 1
		}
		return 0
	})
}

// Decide returns the homes of a region from the page ranges each rank
// wrote (written[rank], ascending and disjoint; nil for a rank that wrote
// nothing or did not take part), appended to out[:0]: a page one rank
// wrote is homed there; a page several wrote is Multi, homed at the master
// (rank 0), which builds it from the merged runs: the master's loss ends
// the job, so such a page needs no replica, and a slave's replica (its
// bytes before the merge) would not be the page. Adjacent pages with the
// same holder and kind share a Home.
func Decide(out []wire.Home, written [][]wire.PageRange) []wire.Home {
	out = out[:0]
	next := make([]int, len(written)) // per rank, its first range not yet passed
	at := 0
	for {
		// The next page some rank wrote, from at on.
		lo := -1
		for rank, rs := range written {
			for next[rank] < len(rs) && rs[next[rank]].Hi <= at {
				next[rank]++
			}
			if next[rank] < len(rs) {
				l := max(rs[next[rank]].Lo, at)
				if lo < 0 || l < lo {
					lo = l
				}
			}
		}
		if lo < 0 {
			return out
		}
		// The stretch from lo on over which the writers do not change.
		hi, holder, writers := -1, -1, 0
		for rank, rs := range written {
			if next[rank] >= len(rs) {
				continue
			}
			r := rs[next[rank]]
			if r.Lo <= lo {
				writers++
				if holder < 0 {
					holder = rank
				}
				if hi < 0 || r.Hi < hi {
					hi = r.Hi
				}
			} else if hi < 0 || r.Lo < hi {
				hi = r.Lo
			}
		}
		if writers > 1 {
			holder = 0
		}
		out = appendHome(out, wire.Home{PageRange: wire.PageRange{Lo: lo, Hi: hi}, Holder: holder, Multi: writers > 1})
		at = hi
	}
}

// appendHome appends h, extending the last home where h continues it.
func appendHome(out []wire.Home, h wire.Home) []wire.Home {
	if k := len(out); k > 0 {
		last := &out[k-1]
		if last.Hi == h.Lo && last.Holder == h.Holder && last.Multi == h.Multi {
			last.Hi = h.Hi
			return out
		}
	}
	return append(out, h)
}

// AtMaster returns hl (ascending, disjoint) with the pages of pages
// (ascending) that hl homes made Multi and homed at the master: pages
// whose runs a writer sent, so that the master can build them (package
// cape does not replicate them). Pages hl lacks are ignored.
func AtMaster(hl []wire.Home, pages []int) []wire.Home {
	if len(pages) == 0 {
		return hl
	}
	out := make([]wire.Home, 0, len(hl)+2*len(pages))
	for _, h := range hl {
		lo := h.Lo
		i, _ := slices.BinarySearch(pages, h.Lo)
		for ; i < len(pages) && pages[i] < h.Hi; i++ {
			p := pages[i]
			if p > lo {
				out = appendHome(out, wire.Home{PageRange: wire.PageRange{Lo: lo, Hi: p}, Holder: h.Holder, Multi: h.Multi})
			}
			out = appendHome(out, wire.Home{PageRange: wire.PageRange{Lo: p, Hi: p + 1}, Holder: 0, Multi: true})
			lo = p + 1
		}
		if lo < h.Hi {
			out = appendHome(out, wire.Home{PageRange: wire.PageRange{Lo: lo, Hi: h.Hi}, Holder: h.Holder, Multi: h.Multi})
		}
	}
	return out
}

// AddHeld returns hl (ascending, disjoint) with the pages of ranges
// (ascending, disjoint from hl's) homed at holder, each written by one
// node.
func AddHeld(hl []wire.Home, ranges []wire.PageRange, holder int) []wire.Home {
	if len(ranges) == 0 {
		return hl
	}
	for _, r := range ranges {
		hl = append(hl, wire.Home{PageRange: r, Holder: holder})
	}
	slices.SortFunc(hl, func(a, b wire.Home) int { return a.Lo - b.Lo })
	out := hl[:0]
	for _, h := range hl {
		out = appendHome(out, h)
	}
	return out
}

// AppendMulti appends to out the pages of homes that several ranks wrote.
func AppendMulti(out []int, homes []wire.Home) []int {
	for _, h := range homes {
		if h.Multi {
			for p := h.Lo; p < h.Hi; p++ {
				out = append(out, p)
			}
		}
	}
	return out
}

// Restrict appends to d the parts of runs (sorted) that lie on pages
// (ascending), in pages of ps bytes, cut at page boundaries.
func Restrict(d *delta.Delta, runs []delta.Run, pages []int, ps int) {
	if len(pages) == 0 {
		return
	}
	for _, r := range runs {
		off, data := int(r.Off), r.Data
		for len(data) > 0 {
			p := off / ps
			k := min(len(data), (p+1)*ps-off)
			if _, ok := slices.BinarySearch(pages, p); ok {
				d.Runs = append(d.Runs, delta.Run{Off: uint64(off), Data: data[:k]})
			}
			off, data = off+k, data[k:]
		}
	}
}
