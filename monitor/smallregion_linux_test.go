package monitor

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
	"golang.org/x/sys/unix"
)

// BenchmarkSmallRegionLazy is BenchmarkSmallRegion on a lazy node's
// tracker (a twin file, SetAbsent set, nothing absent): the slave's side of
// cape bench regions under lazy transfer, one word of one page written per
// region.
func BenchmarkSmallRegionLazy(b *testing.B) {
	for _, pages := range []int{1, 2, 16} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			mem := mapArena(b, 1<<20)
			tr, err := NewLazy(mem, Options{}, LazyOptions{})
			if err != nil {
				testenv.Skip(b, "lazy: %v", err)
			}
			b.Cleanup(func() {
				if err := tr.Close(); err != nil {
					b.Errorf("Close: %v", err)
				}
			})
			tr.SetAbsent(func(int) bool { return false })
			ps := tr.PageSize()
			extent := pages * ps
			for p := range pages {
				mem[p*ps] = 1 // populated, as a program's arena is
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := tr.Start(extent); err != nil {
					b.Fatal(err)
				}
				mem[8*(i%64)]++
				got, err := tr.Stop()
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != 1 || got[0] != 0 {
					b.Fatalf("Stop: pages %v, want [0]", got)
				}
				i++
			}
		})
	}
}

// The conformance suite on a lazy tracker with SetAbsent set (nothing
// absent), the way a lazy node runs it: its short comparisons then skip
// the page walk for pages an earlier walk found populated.
func TestLazyConformanceAbsentSet(t *testing.T) {
	runConformance(t, lazyNothingAbsent(uffdModeAdaptive))
}

// A lazy node's small regions remember which pages a walk found populated,
// Invalidate forgets the pages it discards, and regions after it neither
// read the discarded page nor miss the writes to the others.
func TestLazyPopulatedSeen(t *testing.T) {
	const pages = 3
	ps := unix.Getpagesize()
	mem, tr, absent, rec := newLazyRecorded(t, pages)
	u := plainRegions(tr)
	region := func(write []int) []int {
		t.Helper()
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		for _, p := range write {
			mem[p*ps+16]++
		}
		dirty, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		return dirty
	}
	if got := region([]int{1}); !slices.Equal(got, []int{1}) {
		t.Fatalf("first region: dirty %v, want [1]", got)
	}
	if !u.populatedSeen.hasAll(0, pages) {
		t.Fatalf("after a region over populated pages: populatedSeen %b, want pages 0-%d", u.populatedSeen, pages-1)
	}
	if got := region([]int{0, 2}); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("second region: dirty %v, want [0 2]", got)
	}
	if err := tr.Invalidate([]int{1}); err != nil {
		t.Fatal(err)
	}
	absent[1] = true
	if u.populatedSeen.hasAll(1, 2) || !u.populatedSeen.hasAll(0, 1) || !u.populatedSeen.hasAll(2, 3) {
		t.Fatalf("after Invalidate([1]): populatedSeen %b, want pages 0 and 2", u.populatedSeen)
	}
	if got := region([]int{2}); !slices.Equal(got, []int{2}) {
		t.Fatalf("region after Invalidate: dirty %v, want [2]", got)
	}
	if f := rec.pages(); len(f) != 0 {
		t.Fatalf("pages %v faulted: the regions read the discarded page", f)
	}
}
