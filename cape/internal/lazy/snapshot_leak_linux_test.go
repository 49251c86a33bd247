//go:build linux

package lazy

import (
	"bytes"
	"os"
	"testing"

	"github.com/cape-go/cape/monitor"
)

// A program that leaves memory behind (a time-step loop leaking a buffer
// per step) leaves pages that a slave lacks and no one writes again. Once
// the master's tracker knows them, a snapshot looks only at the pages that
// may have changed, not at every lacked page, and still serves every
// lacked page as of the last exchange.
func TestSnapshotLeaked(t *testing.T) {
	ps := os.Getpagesize()
	const npages, step = 8192, 64 // each step leaves 64 lacked pages
	mem, tr, m := newWatchedMaster(t, npages)
	// The buffers of the last steps are still hot in the tracker, which
	// cannot tell their pages unwritten until they cool (some 12 to 20 Starts):
	// a snapshot may look at those, a bounded number, never at all the
	// older ones.
	const steps, bound = 100, 24 * step
	small := 0
	for k := range steps {
		// The step's buffer, written by the master in the region; the
		// slave is sent notices of it and never touches it again.
		lo := k * step
		// What the translator proves of such a loop: the region writes
		// only the new buffer; the stretch since the last region, which
		// allocated it, is not clean.
		tr.(monitor.Hinter).SetHint(monitor.Hint{Bounded: true, Writes: []monitor.Span{{Off: lo * ps, Len: step * ps}}})
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		touched := map[int]int{}
		for p := lo; p < lo+step; p++ {
			mem[p*ps+k%ps]++
			touched[p] = 0
		}
		if _, err := tr.Stop(); err != nil {
			t.Fatal(err)
		}
		for p := lo; p < lo+step; p++ {
			m.lack(1, p, "R")
		}
		m.snapshot(touched, nil)
		for p := range m.nlack {
			if !bytes.Equal(m.snap[p], mem[p*ps:(p+1)*ps]) {
				t.Fatalf("step %d: the snapshot of page %d is not as of the exchange", k, p)
			}
		}
		if b := m.watch.Between(); k >= 2*bound/step && b.Known() > lo {
			if m.visited > bound {
				t.Errorf("step %d: the snapshot looked at %d pages of %d lacked, want at most %d", k, m.visited, len(m.nlack), bound)
			}
			small++
		}
		mem[(k%4)*ps+100]++ // sequential code rewrites an old buffer
	}
	if small < (steps-2*bound/step)/2 {
		t.Fatalf("the tracker knew the lacked pages at %d snapshots of the last %d; want most", small, steps-2*bound/step)
	}
}
