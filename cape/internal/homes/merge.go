package homes

import (
	"sort"

	"github.com/cape-go/cape/delta"
)

// merge merges the runs that writers (ascending) sent for page p with
// package delta's rule: a byte that differs from its entry value was
// written, two nodes writing different values to one byte conflict (a
// *delta.ConflictError naming both, the offset and the values), and a
// byte equal to its entry value was only carried along. Every writer's
// runs are present (settle collected them).
func (d *Dir) merge(p Page, writers []int) (*delta.Delta, error) {
	ds := make([]*delta.Delta, len(writers))
	ws := make([]*Write, len(writers))
	for i, rank := range writers {
		ws[i] = d.write(rank, p)
		ds[i] = &delta.Delta{Region: d.seq, Node: rank, Runs: ws[i].Runs}
	}
	return delta.MergeBase(d.seq, entryBase(ws), ds...)
}

// entryBase returns a delta.Base that reads the entry bytes the writers
// sent under their runs: the entry state is the same on every node, and
// MergeBase asks only for bytes that two runs cover.
func entryBase(ws []*Write) delta.Base {
	return func(off uint64) []byte {
		for _, w := range ws {
			i := sort.Search(len(w.Runs), func(i int) bool { return w.Runs[i].End() > off })
			if i < len(w.Runs) && w.Runs[i].Off <= off {
				return w.Entry[i][off-w.Runs[i].Off:]
			}
		}
		return nil
	}
}
