package lazy

import (
	"bytes"
	"testing"
)

// TestSnapshotUnwatched takes snapshots without a tracker that tells what
// changed, step by step: a page newly lacked is copied; a lacked page the
// region's deltas touched or the merged delta changed is copied without
// comparing; any other lacked page is compared and copied only if it
// differs; a page no slave lacks any more leaves the snapshot and its
// storage is reused. After each step every lacked page's snapshot is the
// arena's.
func TestSnapshotUnwatched(t *testing.T) {
	const ps, npages = 8, 8
	arena := make([]byte, npages*ps)
	m := newMaster(arena, ps, 3)
	for i, c := range []struct {
		lack, unlack      [][2]int // (slave, page)
		write             []int    // pages the arena changes on before the snapshot
		touched           []int
		changed           []int
		copied, compared  int
		snapped, reserved int // pages in the snapshot; pages of storage in all
	}{
		{lack: [][2]int{{1, 2}, {1, 3}, {2, 3}}, copied: 2, snapped: 2, reserved: 2},
		{write: []int{2}, copied: 1, compared: 1, snapped: 2, reserved: 2},
		{touched: []int{3}, changed: []int{2}, copied: 2, snapped: 2, reserved: 2},
		{unlack: [][2]int{{1, 3}}, write: []int{3}, copied: 1, compared: 1, snapped: 2, reserved: 2},
		{unlack: [][2]int{{2, 3}}, lack: [][2]int{{2, 5}}, copied: 1, compared: 1, snapped: 2, reserved: 2},
		{lack: [][2]int{{1, 6}, {2, 7}}, write: []int{5}, copied: 3, compared: 1, snapped: 4, reserved: 4},
	} {
		for _, l := range c.unlack {
			m.unlack(l[0], l[1])
		}
		for _, l := range c.lack {
			m.lack(l[0], l[1], "R")
		}
		for _, p := range c.write {
			arena[p*ps+i%ps]++
		}
		touched := map[int]int{}
		for _, p := range c.touched {
			touched[p] = 1
		}
		m.snapshot(touched, c.changed)
		if m.copied != c.copied || m.compared != c.compared || len(m.snap) != c.snapped || len(m.snap)+len(m.spare) != c.reserved {
			t.Fatalf("step %d: %d copied, %d compared, %d in the snapshot, %d spare; want %d, %d, %d, %d",
				i, m.copied, m.compared, len(m.snap), len(m.spare), c.copied, c.compared, c.snapped, c.reserved-c.snapped)
		}
		for p := range m.nlack {
			if !bytes.Equal(m.snap[p], arena[p*ps:(p+1)*ps]) {
				t.Fatalf("step %d: page %d's snapshot %x, the arena %x", i, p, m.snap[p], arena[p*ps:(p+1)*ps])
			}
		}
	}
}
