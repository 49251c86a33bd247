package lazy

import (
	"bytes"
	"slices"

	"github.com/cape-go/cape/internal/pagemem"
	"github.com/cape-go/cape/monitor"
)

// snapshot takes the pages some slave lacks from the arena, after the
// exchange injected the region's result; touched holds every page a delta
// of the region touched, changed (increasing) those of the merged delta.
// Callers hold mu.
//
// A page already in the snapshot is refreshed only if it may have changed
// since the last snapshot: this region's deltas touched it, or the
// master's tracker says it may have been written since the last region's
// Stop, which was before the last snapshot. Without a tracker that can
// tell, or with another Start since the last snapshot, every lacked page
// is compared. With one, only the pages that may have changed are
// visited, so that the pages slaves lack and no one writes any more (a
// program's dropped or leaked buffers) cost nothing per region.
func (m *Master) snapshot(touched map[int]int, changed []int) {
	m.copied, m.compared, m.visited = 0, 0, 0
	var b *monitor.Between
	// walk: every lacked page is visited. Otherwise the pages lacked
	// without a snapshot are among those lacked since the last one
	// (unsnapped), and the others, all lacked then and so below the
	// extent of the last Start but one, which the tracker knows, may
	// have changed only if the region touched them or the tracker saw
	// them written.
	walk := true
	if m.watch != nil {
		bw := m.watch.Between()
		if m.starts >= 0 && bw.Starts == m.starts+1 {
			b = &bw
			walk = m.snapTop >= bw.Known()
		}
		m.starts = bw.Starts
	}
	m.snapTop = m.topLack
	// Every snapshot is of a lacked page (unlack drops it with the last
	// lack), so the pages lacked without one are the difference.
	m.reservePages(len(m.nlack) - len(m.snap))
	if walk {
		for p := range m.nlack {
			m.snapPage(p, touched, changed, b)
		}
		m.unsnapped = m.unsnapped[:0]
		return
	}
	cand := append(m.candBuf[:0], m.unsnapped...)
	for p := range touched {
		cand = append(cand, p)
	}
	cand = append(cand, changed...)
	cand = append(cand, b.Written()...)
	slices.Sort(cand)
	cand = slices.Compact(cand)
	for _, p := range cand {
		if m.nlack[p] > 0 {
			m.snapPage(p, touched, changed, b)
		}
	}
	m.candBuf = cand[:0]
	m.unsnapped = m.unsnapped[:0]
}

// snapPage takes or refreshes the snapshot of the lacked page p (see
// snapshot). Callers hold mu.
func (m *Master) snapPage(p int, touched map[int]int, changed []int, b *monitor.Between) {
	ps := m.ps
	m.visited++
	cur := m.arena[p*ps : (p+1)*ps]
	snap, ok := m.snap[p]
	_, hit := touched[p]
	if !hit {
		_, hit = slices.BinarySearch(changed, p)
	}
	switch {
	case !ok:
		buf := m.spare[len(m.spare)-1]
		m.spare = m.spare[:len(m.spare)-1]
		copy(buf, cur)
		m.snap[p] = buf
		m.copied++
	case hit:
		copy(snap, cur) // likely changed: comparing first costs more
		m.copied++
	case b != nil && !b.MayHaveChanged(p):
		// As of the last snapshot.
	case !bytes.Equal(snap, cur):
		copy(snap, cur)
		m.copied++
	default:
		m.compared++
	}
}

// reservePages makes sure n pages of snapshot storage are spare: the
// missing ones come from one new slab, populated in one call
// rather than a fault per page. Callers hold mu.
func (m *Master) reservePages(n int) {
	k := n - len(m.spare)
	if k <= 0 {
		return
	}
	slab := make([]byte, k*m.ps)
	pagemem.Populate(slab)
	for i := range k {
		m.spare = append(m.spare, slab[i*m.ps:(i+1)*m.ps:(i+1)*m.ps])
	}
}
