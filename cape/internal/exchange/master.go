package exchange

import (
	"errors"

	"github.com/cape-go/cape/delta"
)

// Limits are the limits a delta received in a region of extent arena
// bytes is decoded under: no more data than the extent, no more runs than
// a run every other byte, no offset past it.
func Limits(extent int) delta.Limits {
	return delta.Limits{MaxBytes: int64(extent), MaxRuns: extent/2 + 1, ArenaSize: uint64(extent)}
}

// Master is the master's storage for the merge of a region, kept from one
// region to the next (see the package's lifecycle). The tables are indexed
// by rank; the master's own delta is not stored in them. A Master is not
// safe for concurrent use, except that the caller may fill In[rank] and
// Parts[rank] of distinct ranks from several goroutines.
type Master struct {
	// In holds the slaves' decoded deltas, by rank (the caller decodes
	// into it), and Parts their values.
	In    []delta.Delta
	Parts [][]byte
	// Deltas are the nodes' deltas as merged, by rank (the caller sets
	// them from In through the Mode's Received; Merge sets the master's).
	Deltas []*delta.Delta
	// Merged is the merge of every committed node's delta (Merge).
	Merged delta.Delta
	// Out holds, per slave, the merged delta less its own bytes (LessOwn).
	Out []delta.Delta

	live      []*delta.Delta // the deltas merged, the master's first
	liveParts [][]byte       // their values, in the same order
}

// Grow sizes m's tables for a job of size nodes, dropping what they hold
// when the size changes.
func (m *Master) Grow(size int) {
	if len(m.In) == size {
		return
	}
	m.In, m.Out = make([]delta.Delta, size), make([]delta.Delta, size)
	m.Deltas, m.Parts = make([]*delta.Delta, size), make([][]byte, size)
}

// Merge merges own, the master's delta of region seq, and the deltas of
// the committed slaves (Deltas[rank] for rank in committed, in rank order)
// into Merged, against base, the entry state (Diff's runs may carry bytes
// a node did not change: the merge tells them from writes by the entry
// state). A conflict is a *delta.ConflictError naming both nodes. The
// merged runs alias the nodes' deltas except where they overlap. Merge
// also returns the values of the nodes merged, in the same order: own's
// (ownParts), then the committed slaves' Parts.
//
// rule says more of what conflicts: with Updates, two nodes' writes of
// one byte even where they agree; with Locations, two nodes' writes of
// different bytes of one variable (delta.Rule).
func (m *Master) Merge(seq uint64, base delta.Base, own *delta.Delta, ownParts []byte, committed []int, rule delta.Rule) (*delta.Delta, [][]byte, error) {
	m.Deltas[0], m.Parts[0] = own, ownParts
	m.live, m.liveParts = append(m.live[:0], own), append(m.liveParts[:0], ownParts)
	for _, rank := range committed {
		m.live, m.liveParts = append(m.live, m.Deltas[rank]), append(m.liveParts, m.Parts[rank])
	}
	if err := delta.MergeRuleRef(&m.Merged, seq, base, rule, m.live...); err != nil {
		return nil, nil, err
	}
	return &m.Merged, m.liveParts, nil
}

// LessOwn sets Out[rank], for each committed slave, to the merged delta of
// region seq less the bytes of that slave's own delta (delta.Exclude): no
// node receives bytes it wrote. After the program's last region (last),
// which the slaves leave, Out holds no bytes. It returns the data bytes
// of Out in all. Out's runs alias Merged.
func (m *Master) LessOwn(seq uint64, committed []int, last bool) (total int) {
	for _, rank := range committed {
		o := &m.Out[rank]
		o.Reset(seq, delta.Merged)
		if !last {
			o.Runs = delta.Exclude(o.Runs, m.Merged.Runs, m.Deltas[rank].Runs)
		}
		total += o.Len()
	}
	return total
}

// ReleaseOut empties the committed slaves' Out deltas.
func (m *Master) ReleaseOut(committed []int) {
	for _, rank := range committed {
		Release(&m.Out[rank])
	}
}

// Release empties Merged and the committed slaves' In and Parts, and drops
// the references to the payloads they alias.
func (m *Master) Release(committed []int) {
	Release(&m.Merged)
	clear(m.live)
	clear(m.liveParts)
	for _, rank := range committed {
		Release(&m.In[rank])
		m.Parts[rank] = nil
	}
}

// Release empties d, whose runs alias memory it does not own, and drops
// those references so that the memory can be collected. (Every delta whose
// runs alias is released after use, so the table holds no reference past
// its length.)
func Release(d *delta.Delta) {
	clear(d.Runs)
	d.Reset(0, 0)
}

// Conflict returns the conflict err holds, if any, with its nodes in
// rank order (NodeA < NodeB, values swapped with them).
func Conflict(err error) (delta.ConflictError, bool) {
	var ce *delta.ConflictError
	if !errors.As(err, &ce) {
		return delta.ConflictError{}, false
	}
	c := *ce
	if c.NodeA > c.NodeB {
		c.NodeA, c.NodeB, c.ValueA, c.ValueB = c.NodeB, c.NodeA, c.ValueB, c.ValueA
	}
	return c, true
}
