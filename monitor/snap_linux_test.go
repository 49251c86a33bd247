//go:build linux

package monitor

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
	"golang.org/x/sys/unix"
)

// The hinted sequence of TestUffdHintExact with snapshot regions wherever
// a hint allows one, mixed ones elsewhere, and now and then a faults or
// compared region: every Stop exact, every twin of the bounds current.
func TestUffdHintSnap(t *testing.T) {
	for _, transitions := range []bool{false, true} {
		t.Run(fmt.Sprintf("transitions=%v", transitions), func(t *testing.T) {
			if n := hintExact(t, transitions, uffdModeSnap); n < 20 {
				t.Errorf("%d snapshot regions, want at least 20: the sequence did not exercise them", n)
			}
		})
	}
}

// The conformance suite on a lazy tracker with SetAbsent set, with
// snapshot regions wherever a hint allows one.
func TestLazyConformanceSnap(t *testing.T) { runConformance(t, lazyNothingAbsent(uffdModeSnap)) }

// lazyNothingAbsent returns a conformance suite's tracker: a lazy one
// over populated memory, with SetAbsent set (nothing absent), whose
// regions are tracked in mode.
func lazyNothingAbsent(mode uffdMode) func(mem []byte) (Tracker, error) {
	return func(mem []byte) (Tracker, error) {
		for i := 0; i < len(mem); i += unix.Getpagesize() {
			mem[i] = 0
		}
		tr, err := NewLazy(mem, Options{}, LazyOptions{Missing: true})
		if err == nil {
			tr.SetAbsent(func(int) bool { return false })
			tr.(*lazyTracker).mode = mode
		}
		return tr, err
	}
}

// Snapshot regions over different pages in a row, then a mixed region
// after a clean stretch: the pages the first snapshot region wrote, which
// the last Stop (the second's) does not list, must reach the mixed Start
// as known written, or their twins stay as of the first region's Start
// and the mixed Stop reports them again.
func TestUffdSnapHandoff(t *testing.T) {
	c := newMixedCase(t)
	c.u.mode = uffdModeSnap
	for range 3 { // pages 1, 20 and 40 hot
		c.hstart(Hint{})
		for _, p := range []int{1, 20, 40} {
			c.mem[p*c.ps+c.i]++
		}
		c.stop()
	}
	for _, p := range []int{1, 20} {
		c.hstart(Hint{Clean: true, Bounded: true, Writes: []Span{c.pageSpan(p, p+1)}})
		if !c.u.snap {
			t.Fatalf("region over page %d: not a snapshot region (chunk %+v)", p, c.u.chunks[p/chunkPages])
		}
		c.mem[p*c.ps+7]++
		if got := c.stop(); !slices.Equal(got, []int{p}) {
			t.Fatalf("snapshot region over page %d: Stop = %v", p, got)
		}
	}
	c.hstart(Hint{Clean: true})
	if c.u.snap || c.u.kind != kindPlain {
		t.Fatalf("unbounded region: snap %v, kind %v, want mixed", c.u.snap, c.u.kind)
	}
	c.mem[40*c.ps+9]++
	c.stop() // exactly [40]
}

// When a snapshot region is taken (uffdModeSnap: whatever its size): a
// region with bounded writes over the same extent as the region before
// it; and what it leaves for the regions after it.
func TestUffdSnapFits(t *testing.T) {
	c := newMixedCase(t)
	c.u.mode = uffdModeSnap
	cold := 200 // chunk 12, never written: cold after a few Starts
	hot := 5
	for range 12 {
		c.hstart(Hint{})
		c.mem[hot*c.ps+c.i]++
		c.stop()
	}
	if c.state(cold/chunkPages) != chunkCold || c.state(hot/chunkPages) != chunkHot {
		t.Fatalf("chunks %v and %v, want cold and hot", c.state(cold/chunkPages), c.state(hot/chunkPages))
	}
	one := func(p int) Hint { return Hint{Bounded: true, Writes: []Span{c.pageSpan(p, p+1)}} }
	for _, tc := range []struct {
		name   string
		h      Hint
		extent int
		mode   uffdMode
		snap   bool
	}{
		{"hot page", one(hot), len(c.mem), uffdModeSnap, true},
		{"cold page", one(cold), len(c.mem), uffdModeSnap, true},
		{"hot and cold", Hint{Bounded: true, Writes: []Span{c.pageSpan(hot, hot+1), c.pageSpan(cold, cold+1)}}, len(c.mem), uffdModeSnap, true},
		{"unbounded", Hint{}, len(c.mem), uffdModeSnap, false},
		{"bounded to nothing", Hint{Bounded: true}, len(c.mem), uffdModeSnap, true},
		{"mixed mode", one(hot), len(c.mem), uffdModePlain, false},
		{"other extent", one(hot), len(c.mem) - chunkPages*c.ps, uffdModeSnap, false},
		{"the first extent again", one(hot), len(c.mem), uffdModeSnap, false},
		{"the same extent again", one(hot), len(c.mem), uffdModeSnap, true},
	} {
		c.u.mode = tc.mode
		c.hstartAt(tc.h, tc.extent)
		if c.u.snap != tc.snap {
			t.Errorf("%s: snapshot region %v, want %v", tc.name, c.u.snap, tc.snap)
		}
		for _, w := range tc.h.Writes {
			c.mem[w.Off+c.i]++
		}
		c.stopAgainst(c.mem[:tc.extent], c.snap[:tc.extent])
	}
	// The cold page the snapshot regions wrote, unprotected by its fault,
	// woke its chunk at the next mixed Start, which found it written (and
	// refreshed its twin: hstart checks it); the chunks nobody wrote stay
	// cold.
	c.hstart(Hint{})
	c.stop()
	if c.state(cold/chunkPages) != chunkHot || c.state(150/chunkPages) != chunkCold {
		t.Errorf("chunks %v and %v after a mixed region, want hot and cold", c.state(cold/chunkPages), c.state(150/chunkPages))
	}
}

// A watched tracker's snapshot Start learns what a Start of the kind
// before it would: after a stretch not proven clean, the pages written
// since the last walk where write-protected (all of them after a faults
// region, those of cold chunks after a mixed one) and every page of the
// hot chunks may have changed, the others not; after a clean stretch,
// none; and its Starts count. The next Start of another kind still finds
// the page written before the snapshot regions, and refreshes its twin.
func TestUffdSnapBetween(t *testing.T) {
	const hot, cold, coldWritten = 5, 150, 200
	for _, tc := range []struct {
		name string
		base uffdMode
		// hotChunk: a page of hot's chunk that no region writes
		hotChunk bool
	}{{"mixed", uffdModePlain, true}, {"faults", uffdModeFaults, false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newMixedCase(t)
			c.u.WatchBetween()
			c.u.mode = tc.base
			for range 12 {
				c.hstart(Hint{})
				c.mem[hot*c.ps+c.i]++
				c.stop()
			}
			c.u.mode = uffdModeSnap
			bounds := Hint{Bounded: true, Writes: []Span{c.pageSpan(hot, hot+1)}}
			starts := c.u.Between().Starts
			c.mem[coldWritten*c.ps]++ // not announced
			c.hstart(bounds)
			b := c.u.Between()
			if !c.u.snap || b.Starts != starts+1 {
				t.Fatalf("snap %v, Between.Starts %d, want a snapshot region and %d", c.u.snap, b.Starts, starts+1)
			}
			for _, w := range []struct {
				p    int
				want bool
			}{{hot, true}, {hot/chunkPages*chunkPages + 3, tc.hotChunk}, {cold, false}, {coldWritten, true}} {
				if got := b.MayHaveChanged(w.p); got != w.want {
					t.Errorf("unclean stretch: MayHaveChanged(%d) = %v, want %v", w.p, got, w.want)
				}
			}
			c.mem[hot*c.ps]++
			c.stop()
			bounds.Clean = true
			c.hstart(bounds)
			b = c.u.Between()
			for _, p := range []int{hot, cold, coldWritten} {
				if b.MayHaveChanged(p) {
					t.Errorf("clean stretch: MayHaveChanged(%d) = true, want false", p)
				}
			}
			c.stop()
			c.u.mode = tc.base
			c.hstart(Hint{})
			if b := c.u.Between(); c.u.snap || !b.MayHaveChanged(coldWritten) {
				t.Errorf("Start after the snapshot regions (snap %v): page %d not found written", c.u.snap, coldWritten)
			}
			c.stop()
		})
	}
}

// BenchmarkSmallRegionHinted measures a region whose hint bounds its writes
// to one page (cape.WritesIn over a short slice), over arenas of 16, 512
// and 4096 pages in use, every page populated, adaptive tracking, on the
// uffd tracker and on a lazy node's (SetAbsent set, nothing absent); the
// stretch between regions is not proven clean, as in a loop of several
// regions. kind-snap is the share of snapshot regions.
func BenchmarkSmallRegionHinted(b *testing.B) {
	for _, lazy := range []bool{false, true} {
		for _, pages := range []int{16, 512, 4096} {
			name := fmt.Sprintf("uffd/pages=%d", pages)
			if lazy {
				name = fmt.Sprintf("lazy/pages=%d", pages)
			}
			b.Run(name, func(b *testing.B) { benchHinted(b, pages, lazy) })
		}
	}
}

func benchHinted(b *testing.B, pages int, lazy bool) {
	mem := mapArena(b, 4096*unix.Getpagesize())
	var tr Tracker
	var err error
	if lazy {
		var l Lazy
		l, err = NewLazy(mem, Options{}, LazyOptions{})
		if err == nil {
			l.SetAbsent(func(int) bool { return false })
		}
		tr = l
	} else {
		tr, err = New(BackendUffd, mem, Options{})
	}
	if err != nil {
		testenv.Skip(b, "uffd: %v", err)
	}
	b.Cleanup(func() {
		if err := tr.Close(); err != nil {
			b.Errorf("Close: %v", err)
		}
	})
	ps := tr.PageSize()
	extent := pages * ps
	for off := 0; off < extent; off += ps {
		mem[off] = 1
	}
	target := pages / 2
	h := Hint{Bounded: true, Writes: []Span{{Off: target * ps, Len: ps}}}
	u := trackerOf(tr)
	region := func(i int) {
		u.SetHint(h)
		if err := tr.Start(extent); err != nil {
			b.Fatal(err)
		}
		mem[target*ps+8*(i%64)]++
		got, err := tr.Stop()
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 1 || got[0] != target {
			b.Fatalf("Stop: pages %v, want [%d]", got, target)
		}
	}
	for i := range 100 { // the chunks left alone turn cold
		region(i)
	}
	measureRegions(b, u, region)
}

// measureRegions runs region(i), i = 0, 1, ..., as the benchmark's loop,
// and reports the share of snapshot regions of u as kind-snap.
func measureRegions(b *testing.B, u *uffdTracker, region func(i int)) {
	snaps, i := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		region(i)
		if u.tracked() == kindSnap {
			snaps++
		}
		i++
	}
	b.ReportMetric(float64(snaps)/float64(b.N), "kind-"+kindSnap.String())
}

// trackerOf returns the uffd tracker of a uffd or lazy Tracker.
func trackerOf(tr Tracker) *uffdTracker {
	if l, ok := tr.(*lazyTracker); ok {
		return l.uffdTracker
	}
	return tr.(*uffdTracker)
}

// BenchmarkSnapBounds measures, over an extent of 1024 pages, a region
// whose hint bounds its writes to h pages and which writes one of them,
// tracked as a snapshot region whatever h (snap=forced) or as the adaptive
// tracker chooses (snap=auto: a snapshot region up to snapMaxPages pages
// when estimated cheaper, faults or mixed otherwise): where the two cross
// is snapMaxPages. kind-snap is the share of snapshot regions.
func BenchmarkSnapBounds(b *testing.B) {
	for _, forced := range []bool{true, false} {
		for _, h := range []int{1, 4, 16, 32, 64, 128, 256} {
			name := fmt.Sprintf("snap=auto/h=%d", h)
			if forced {
				name = fmt.Sprintf("snap=forced/h=%d", h)
			}
			b.Run(name, func(b *testing.B) { benchSnapBounds(b, h, forced) })
		}
	}
}

func benchSnapBounds(b *testing.B, h int, forced bool) {
	const pages, first = 1024, 100
	mem := mapArena(b, 4*pages*unix.Getpagesize())
	tr := newOrSkip(b, BackendUffd, mem)
	u := tr.(*uffdTracker)
	ps := tr.PageSize()
	for off := 0; off < pages*ps; off += ps {
		mem[off] = 1
	}
	hint := Hint{Bounded: true, Writes: []Span{{Off: first * ps, Len: h * ps}}}
	region := func(i int) {
		u.SetHint(hint)
		if err := tr.Start(pages * ps); err != nil {
			b.Fatal(err)
		}
		mem[first*ps+8*(i%64)]++
		if got, err := tr.Stop(); err != nil || len(got) != 1 || got[0] != first {
			b.Fatalf("Stop = %v, %v; want [%d]", got, err, first)
		}
	}
	for i := range 100 {
		region(i)
	}
	if forced {
		u.mode = uffdModeSnap
	}
	measureRegions(b, u, region)
}
