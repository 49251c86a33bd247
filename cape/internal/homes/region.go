package homes

import (
	"fmt"
	"slices"

	"github.com/cape-go/cape/delta"
)

// begin opens region instance seq of site and hints, to each node that
// wrote pages together with others in the last instance of site, to send
// those pages' runs with its notice.
func (d *Dir) begin(seq uint64, site int) error {
	if d.open {
		return fmt.Errorf("region %d begins while region %d is open: %w", seq, d.seq, ErrProtocol)
	}
	if seq <= d.lastSeq {
		return fmt.Errorf("region %d begins after region %d: %w", seq, d.lastSeq, ErrProtocol)
	}
	d.open, d.seq, d.site = true, seq, site
	n := len(d.live)
	d.notices = resize(d.notices, n)
	d.values = resize(d.values, n)
	d.noticed = resize(d.noticed, n)
	d.pending = nil
	clear(d.asked)
	for rank, ps := range d.shared[site] {
		if d.live[rank] && len(ps) > 0 {
			d.emit(Action{Kind: Share, Node: rank, Pages: ps})
		}
	}
	return nil
}

// resize returns s with length n, every element zero.
func resize[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// touch serves node's first access to page p: a fetch from its holder, or
// a zero page at version 0. A node that fetched a page some region wrote
// learns it for that region's site.
func (d *Dir) touch(node int, p Page) error {
	if p < 0 {
		return fmt.Errorf("node %d touched page %d: %w", node, p, ErrProtocol)
	}
	e := d.get(p)
	if e == nil {
		e = &entry{holder: ZeroHome}
		d.pages[p] = e
	}
	if slices.Contains(e.copies, node) {
		return fmt.Errorf("node %d touched page %d, which it holds at version %d: %w", node, p, e.ver, ErrProtocol)
	}
	if e.ver == 0 {
		d.emit(Action{Kind: Fetch, Node: node, Page: p, From: ZeroHome, Zero: true})
	} else {
		d.emit(Action{Kind: Fetch, Node: node, Page: p, From: e.holder, Version: e.ver})
		d.learn(e.site, node, p)
	}
	e.copies = insert(e.copies, node)
	return nil
}

// learn records that node fetched page p after a region of site wrote it.
func (d *Dir) learn(site, node int, p Page) {
	sets := d.learned[site]
	if sets == nil {
		sets = make([]map[Page]bool, len(d.live))
		d.learned[site] = sets
	}
	if sets[node] == nil {
		sets[node] = map[Page]bool{}
	}
	sets[node][p] = true
}

// insert adds x to the ascending set s.
func insert(s []int, x int) []int {
	i, found := slices.BinarySearch(s, x)
	if found {
		return s
	}
	return slices.Insert(s, i, x)
}

// remove deletes x from the ascending set s.
func remove(s []int, x int) []int {
	if i, found := slices.BinarySearch(s, x); found {
		return slices.Delete(s, i, i+1)
	}
	return s
}

// notice records node's write notices; the region settles when every live
// node's has arrived. The directory keeps ws and values until the region
// is released.
func (d *Dir) notice(node int, ws []Write, values []byte) error {
	if !d.open {
		return fmt.Errorf("node %d sent notices outside a region: %w", node, ErrProtocol)
	}
	if d.noticed[node] {
		return fmt.Errorf("node %d sent notices twice in region %d: %w", node, d.seq, ErrProtocol)
	}
	for i, w := range ws {
		if i > 0 && w.Page <= ws[i-1].Page {
			return fmt.Errorf("node %d: notices not in increasing page order at page %d: %w", node, w.Page, ErrProtocol)
		}
		if e := d.get(w.Page); e == nil || !slices.Contains(e.copies, node) {
			return fmt.Errorf("node %d wrote page %d, which it does not hold: %w", node, w.Page, ErrProtocol)
		}
		if err := d.checkRuns(w); err != nil {
			return fmt.Errorf("node %d: %w", node, err)
		}
	}
	d.notices[node], d.values[node], d.noticed[node] = ws, values, true
	d.settle()
	return nil
}

// checkRuns checks that w's runs, if sent, are sorted, disjoint, not empty
// and inside w's page, each with its entry bytes.
func (d *Dir) checkRuns(w Write) error {
	if w.Runs == nil {
		return nil
	}
	if len(w.Entry) != len(w.Runs) {
		return fmt.Errorf("page %d: %d runs with %d entry slices: %w", w.Page, len(w.Runs), len(w.Entry), ErrProtocol)
	}
	lo := uint64(w.Page) * uint64(d.cfg.PageSize)
	hi := lo + uint64(d.cfg.PageSize)
	for i, r := range w.Runs {
		switch {
		case len(r.Data) == 0 || len(w.Entry[i]) != len(r.Data):
			return fmt.Errorf("page %d: run %d has %d bytes and %d entry bytes: %w", w.Page, i, len(r.Data), len(w.Entry[i]), ErrProtocol)
		case r.Off < lo || r.End() > hi || r.End() < r.Off:
			return fmt.Errorf("page %d: run at %#x of %d bytes is outside the page: %w", w.Page, r.Off, len(r.Data), ErrProtocol)
		case i > 0 && r.Off < w.Runs[i-1].End():
			return fmt.Errorf("page %d: runs overlap or are out of order at %#x: %w", w.Page, r.Off, ErrProtocol)
		}
	}
	return nil
}

// writers returns the live nodes whose notices name each written page,
// ascending.
func (d *Dir) writers() map[Page][]int {
	ws := map[Page][]int{}
	for rank, n := range d.notices {
		if !d.noticed[rank] {
			continue
		}
		for _, w := range n {
			ws[w.Page] = append(ws[w.Page], rank)
		}
	}
	return ws
}

// settle finishes the region once every live node's notices are in: it
// collects the runs that multiple-writer pages lack, or finishes.
func (d *Dir) settle() {
	for rank, ok := range d.live {
		if ok && !d.noticed[rank] {
			return
		}
	}
	ws := d.writers()
	d.pending = map[Page][]int{}
	asks := make([][]Page, len(d.live))
	for _, p := range sortedKeys(ws) {
		if len(ws[p]) < 2 {
			continue
		}
		for _, rank := range ws[p] {
			if w := d.write(rank, p); w.Runs == nil {
				d.pending[p] = append(d.pending[p], rank)
				if k := (ask{p, rank}); !d.asked[k] {
					d.asked[k] = true
					asks[rank] = append(asks[rank], p)
				}
			}
		}
	}
	if len(d.pending) > 0 {
		for rank, ps := range asks {
			if len(ps) > 0 {
				d.emit(Action{Kind: Collect, Node: rank, Pages: ps})
			}
		}
		return
	}
	d.finish(ws)
}

// write returns rank's notice for page p, or a Write of page -1 if none.
func (d *Dir) write(rank int, p Page) *Write {
	n := d.notices[rank]
	i, found := slices.BinarySearchFunc(n, p, func(w Write, p Page) int { return w.Page - p })
	if !found {
		return &Write{Page: -1}
	}
	return &n[i]
}

// runs takes node's answer to a Collect; the region finishes when no runs
// are missing.
func (d *Dir) runs(node int, ws []Write) error {
	for _, w := range ws {
		if have := d.write(node, w.Page); !d.open || !d.asked[ask{w.Page, node}] || have.Page != w.Page ||
			have.Runs != nil || w.Runs == nil {
			return fmt.Errorf("node %d sent runs of page %d, which were not asked for: %w", node, w.Page, ErrProtocol)
		}
		if err := d.checkRuns(w); err != nil {
			return fmt.Errorf("node %d: %w", node, err)
		}
	}
	for _, w := range ws {
		have := d.write(node, w.Page)
		have.Runs, have.Entry = w.Runs, w.Entry
	}
	if len(d.pending) > 0 {
		d.settle()
	}
	return nil
}

// sortedKeys returns m's keys, ascending.
func sortedKeys[V any](m map[Page]V) []Page {
	ks := make([]Page, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// finish merges the multiple-writer pages (stopping at a conflict), gives
// every written page its new version and home, and releases the region:
// merged runs, invalidations, pushes, replications, values.
func (d *Dir) finish(ws map[Page][]int) {
	pages := sortedKeys(ws)
	merged := map[Page]*delta.Delta{}
	for _, p := range pages {
		if len(ws[p]) < 2 {
			continue
		}
		m, err := d.merge(p, ws[p])
		if err != nil {
			d.emit(Action{Kind: Conflict, Page: p, Err: err})
			d.stopped = fmt.Errorf("region %d: page %d: %w", d.seq, p, err)
			return
		}
		merged[p] = m
	}
	stale := make([][]Page, len(d.live))
	shared := make([][]Page, len(d.live))
	for _, p := range pages {
		e := d.pages[p]
		w := ws[p]
		for _, c := range e.copies {
			if !slices.Contains(w, c) {
				stale[c] = append(stale[c], p)
			}
		}
		e.ver, e.site, e.holder, e.copies = d.seq, d.site, w[0], append(e.copies[:0], w...)
		if m := merged[p]; m != nil {
			d.emit(Action{Kind: Merged, Page: p, From: w[0], To: slices.Clone(w), Version: d.seq, Delta: m})
			for _, rank := range w {
				shared[rank] = append(shared[rank], p)
			}
		}
	}
	d.shared[d.site] = shared
	pushes := d.pushes(ws, stale)
	for rank, ps := range stale {
		if len(ps) > 0 {
			d.emit(Action{Kind: Invalidate, Node: rank, Pages: ps})
		}
	}
	d.out = append(d.out, pushes...)
	d.replicate(pages)
	d.emit(Action{Kind: Release, Seq: d.seq, Values: slices.Clone(d.values)})
	d.open, d.lastSeq, d.pending = false, d.seq, nil
	clear(d.notices)
	clear(d.values)
}

// pushes returns the pushes of the region's written pages to the nodes
// that learned them for its site, and takes those pages out of stale.
func (d *Dir) pushes(ws map[Page][]int, stale [][]Page) []Action {
	var out []Action
	for rank, set := range d.learned[d.site] {
		if !d.live[rank] || len(set) == 0 {
			continue
		}
		for _, p := range sortedKeys(set) {
			e := d.pages[p]
			if _, written := ws[p]; !written || slices.Contains(e.copies, rank) {
				continue
			}
			out = append(out, Action{Kind: Push, Page: p, From: e.holder, To: []int{rank}, Version: e.ver})
			e.copies = insert(e.copies, rank)
			if i := slices.Index(stale[rank], p); i >= 0 {
				stale[rank] = slices.Delete(stale[rank], i, i+1)
			}
		}
	}
	return out
}
