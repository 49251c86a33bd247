//go:build linux

package monitor

import (
	"runtime"
	"slices"
	"testing"

	"github.com/cape-go/cape/internal/pagemem"
	"github.com/cape-go/cape/internal/uffd"
	"golang.org/x/sys/unix"
)

// pagesWith returns the pages of [lo, hi) of u's memory in one of the
// PAGEMAP_SCAN categories mask.
func pagesWith(u *uffdTracker, lo, hi int, mask uint64) []int {
	var got []int
	u.pagesIn(lo, hi, mask, func(a, b int) {
		for p := a; p < b; p++ {
			got = append(got, p)
		}
	})
	return got
}

// TestUffdWakeUntouched: a region whose writes are bounded wakes the
// chunks of memory the program has not touched yet that the bounds meet,
// without populating them: its first write to a page then takes one
// fault, as without tracking, not two (a write under a protection marker
// installs the page, then faults on the protection). Stop still reports
// exactly the pages written, the pages not written stay untouched, and
// the chunks outside the bounds stay cold.
func TestUffdWakeUntouched(t *testing.T) {
	c := newUntouched(t) // its model faulted in: the first writes below count the tracked memory's faults only
	u, ps := c.u, c.ps
	np := len(c.mem) / ps
	c.start(Hint{}, len(c.mem)) // the whole extent is untouched: every chunk is born cold
	c.stop()
	for ch := range u.chunks {
		if st := u.chunks[ch].state; st != chunkCold || !u.chunks[ch].untouched {
			t.Fatalf("chunk %d: %v (untouched %v), want cold and untouched", ch, st, u.chunks[ch].untouched)
		}
	}
	const lo, hi, written = 4 * chunkPages, 12 * chunkPages, 6 * chunkPages // pages
	c.start(Hint{Clean: true, Bounded: true, Writes: []Span{c.pageSpan(lo, hi)}}, len(c.mem))
	for ch := range u.chunks {
		want := chunkCold
		if ch*chunkPages >= lo && ch*chunkPages < hi {
			want = chunkHot
		}
		if st := u.chunks[ch].state; st != want {
			t.Fatalf("chunk %d is %v after a Start bounded to pages [%d, %d), want %v", ch, st, lo, hi, want)
		}
	}
	if got := pagesWith(u, 0, np, uffd.PageIsPresent); len(got) != 0 {
		t.Fatalf("waking untouched chunks populated pages %v", got)
	}
	if got := pagesWith(u, lo, hi, uffd.PageIsSwapped); len(got) != 0 {
		t.Fatalf("woken chunks kept protection markers on pages %v", got)
	}
	runtime.LockOSThread()
	f0 := pagemem.Faults(true)
	for p := lo; p < lo+written; p++ {
		c.write(p*ps + 3)
	}
	faults := pagemem.Faults(true) - f0
	runtime.UnlockOSThread()
	if faults > written*3/2 {
		t.Errorf("first writes to %d pages of woken chunks took %d faults, want about one a page", written, faults)
	}
	if got := c.stop(); len(got) != written || got[0] != lo {
		t.Fatalf("Stop = %v, want pages [%d, %d)", got, lo, lo+written)
	}
	if p := pagesWith(u, lo+written, hi, uffd.PageIsPresent); len(p) != 0 {
		t.Fatalf("pages %v the region did not touch were populated", p)
	}
	// Later regions see the woken chunks as any hot chunk: writes found
	// (stop), twins exact (start), and the chunks outside the bounds too.
	for i := range 12 {
		c.start(Hint{Clean: true}, len(c.mem))
		c.write((lo+written+i)*ps + 5)
		c.write((lo+i)*ps + 9)
		c.write((hi+i)*ps + 1)
		c.stop()
	}
}

// TestLazyUntouchedNotRead: a lazy node's tracker never reads a page the
// node has not touched, which would be a round trip to its helper (and
// install zero pages after it): not in a short run of hot pages, not at a
// probe page of a chunk it cools, not at a sampled page. The recorder
// resolves and records every such read.
func TestLazyUntouchedNotRead(t *testing.T) {
	for _, chunks := range []int{2, 8} { // hot runs below populatedMin pages, and above
		ps := unix.Getpagesize()
		mem := mapArena(t, 16*chunkPages*ps)
		tr, err := NewLazy(mem, Options{}, LazyOptions{Missing: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := tr.Close(); err != nil {
				t.Error(err)
			}
		})
		absent := map[int]bool{}
		tr.SetAbsent(func(p int) bool { return absent[p] })
		rec := recordFaults(t, tr.UffdFD(), mem, 0xEE)
		u := tr.(*lazyTracker).uffdTracker
		u.mode = uffdModePlain
		for ch := range chunks {
			mem[ch*chunkPages*ps] = 1 // the first page of each chunk: the chunks start hot
		}
		// An invalidation (of a page of the last chunk, untouched) makes a
		// missing page fault to the recorder from now on.
		last := len(mem)/ps - 1
		absent[last] = true
		if err := tr.Invalidate([]int{last}); err != nil {
			t.Fatal(err)
		}
		sampled, probed := false, false
		for i := range 40 {
			u.costs.sample = i%3 == 0 // as an explored compared region does
			sampled = sampled || u.costs.sample
			if err := tr.Start(len(mem)); err != nil {
				t.Fatal(err)
			}
			for ch := range chunks {
				probed = probed || u.chunks[ch].state == chunkProbing
			}
			mem[7] = byte(i + 2) // page 0 changes; the other chunks idle and cool
			dirty, err := tr.Stop()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dirty, []int{0}) {
				t.Fatalf("%d chunks, region %d: dirty %v, want [0]", chunks, i, dirty)
			}
		}
		if !sampled || !probed {
			t.Fatalf("%d chunks: sampled %v, probed %v: the test does not exercise samples and probes", chunks, sampled, probed)
		}
		if f := rec.pages(); len(f) != 0 {
			t.Fatalf("%d chunks: the tracker read pages the node never touched: faults on %v", chunks, f)
		}
	}
}
