package homes

import (
	"cmp"
	"fmt"
	"slices"
)

// buddy returns the node that keeps replicas of holder's home pages: the
// next live slave after it, cyclically, or the master where holder is the
// only live slave.
func (d *Dir) buddy(holder int) int {
	n := len(d.live)
	for i := 1; i < n; i++ {
		if b := (holder + i) % n; b != 0 && d.live[b] {
			return b
		}
	}
	return 0
}

// needsReplica reports whether e's current version lives on one slave
// only, with no replica of it on a live buddy.
func (d *Dir) needsReplica(e *entry) bool {
	if e.ver == 0 || len(e.copies) != 1 || e.copies[0] == 0 {
		return false
	}
	return !(e.hasReplica && e.replVer == e.ver && d.live[e.replica])
}

// replicate asks each slave to replicate those of pages (ascending) that
// it alone holds to its buddy, one action per slave and version.
func (d *Dir) replicate(pages []Page) {
	type key struct {
		holder int
		ver    uint64
	}
	by := map[key][]Page{}
	var keys []key
	for _, p := range pages {
		if e := d.pages[p]; e != nil && d.needsReplica(e) {
			k := key{e.holder, e.ver}
			if by[k] == nil {
				keys = append(keys, k)
			}
			by[k] = append(by[k], p)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.holder != b.holder {
			return a.holder - b.holder
		}
		return cmp.Compare(a.ver, b.ver)
	})
	for _, k := range keys {
		d.emit(Action{Kind: Replicate, From: k.holder, To: []int{d.buddy(k.holder)}, Pages: by[k], Version: k.ver})
	}
}

// discard drops lost node's part in the open region: its notice, if sent,
// and the master's, which must come again after the master re-ran the
// node's units (the roster's rule: units of a lost node are re-run, and a
// loss after the master's share ended fails the region there).
func (d *Dir) discard(node int) {
	d.emit(Action{Kind: Discard, Node: node})
	d.noticed[node], d.notices[node], d.values[node] = false, nil, nil
	if d.noticed[0] {
		d.noticed[0], d.notices[0], d.values[0] = false, nil, nil
	}
	d.pending = nil
	for k := range d.asked {
		if k.rank == node || k.rank == 0 {
			delete(d.asked, k)
		}
	}
}

// replicated records that buddy holds replicas of pages as of version ver.
// A replica older than a page's current version is kept, and useless for
// recovery.
func (d *Dir) replicated(buddy int, ver uint64, pages []Page) error {
	for _, p := range pages {
		if e := d.get(p); e == nil || ver == 0 || ver > e.ver {
			return fmt.Errorf("node %d replicated page %d at version %d it never had: %w", buddy, p, ver, ErrProtocol)
		}
	}
	for _, p := range pages {
		if e := d.get(p); !e.hasReplica || ver >= e.replVer {
			e.replica, e.replVer, e.hasReplica = buddy, ver, true
		}
	}
	return nil
}

// lose removes node: its notice of an open region is discarded, the pages
// it homed move to another copy or are recovered from a replica, and if
// some cannot be the directory asks for a rollback and stops.
func (d *Dir) lose(node int) error {
	if node == 0 {
		return fmt.Errorf("the master cannot be lost here: %w", ErrProtocol)
	}
	d.live[node] = false
	for _, sets := range d.learned {
		sets[node] = nil
	}
	for _, sets := range d.shared {
		sets[node] = nil
	}
	if d.open {
		d.discard(node)
	}
	pages := d.Pages()
	var lost []Page
	for _, p := range pages {
		e := d.pages[p]
		if e.hasReplica && e.replica == node {
			e.hasReplica = false
		}
		if !slices.Contains(e.copies, node) {
			continue
		}
		e.copies = remove(e.copies, node)
		if e.holder != node {
			continue
		}
		switch {
		case len(e.copies) > 0:
			e.holder = e.copies[0]
			d.emit(Action{Kind: Rehome, Page: p, Node: e.holder, Version: e.ver})
		case e.hasReplica && e.replVer == e.ver:
			e.holder, e.copies, e.hasReplica = e.replica, []int{e.replica}, false
			d.emit(Action{Kind: Recover, Page: p, From: e.replica, Version: e.ver})
		default:
			lost = append(lost, p)
		}
	}
	if len(lost) > 0 {
		d.emit(Action{Kind: Rollback, Node: node, Pages: lost})
		d.stopped = fmt.Errorf("node %d was the only holder of %d pages", node, len(lost))
		return nil
	}
	d.replicate(pages)
	if d.open {
		d.settle()
	}
	return nil
}
