//go:build linux

package monitor

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/testenv"
	"golang.org/x/sys/unix"
)

// twinData counts the pages of tr's twin file that hold data (not holes):
// the twin pages resident on the node.
func twinData(tr Lazy, pages int) int {
	u := tr.(*lazyTracker).uffdTracker
	n := 0
	u.res.twin.spans(&holeCache{}, 0, pages, u.pageSize, func(lo, hi int, data bool) {
		if data {
			n += hi - lo
		}
	})
	return n
}

// chunkHint bounds a region's writes to the chunks [lo, hi).
func chunkHint(lo, hi int, clean bool) Hint {
	cb := chunkPages * unix.Getpagesize()
	return Hint{Clean: clean, Bounded: true, Writes: []Span{{Off: lo * cb, Len: (hi - lo) * cb}}}
}

// Under distributed homes (TwinWritesOnly) a node's twins follow what its
// regions write: a memory that sequential code filled has twins only for
// the chunks a region's bounds meet (every Start is mixed, whatever kind
// the tracker picks or is forced to), of
// which those the region did not write are released at its Stop, once;
// the twins of pages invalidated (held by another node) are released; and
// every Stop is still exact with the entry bytes of every page written in
// its twin. An unbounded region takes every twin. The bounds allow the
// probe page's twin (probeFault).
func TestLazyTwinsFollowWrites(t *testing.T) {
	for _, mode := range []uffdMode{uffdModeAdaptive, uffdModeFaults, uffdModePlain, uffdModeAlternate} {
		t.Run(modeName(mode), func(t *testing.T) { testTwinsFollowWrites(t, mode) })
	}
}

func modeName(m uffdMode) string {
	return [...]string{"adaptive", "faults", "compare", "plain", "alternate", "snap"}[m]
}

func testTwinsFollowWrites(t *testing.T, mode uffdMode) {
	const pages = 8 * chunkPages
	ps := unix.Getpagesize()
	mem, tr, absent, rec := newLazyRecorded(t, pages) // every page populated, first byte p+1
	tr.(*lazyTracker).mode = mode
	tr.TwinWritesOnly()
	region := func(h Hint, write []int, wantTwins int) {
		t.Helper()
		tr.(Hinter).SetHint(h)
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		entry := map[int][]byte{}
		for _, p := range write {
			entry[p] = slices.Clone(mem[p*ps : (p+1)*ps])
			mem[p*ps+100]++
		}
		dirty, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(dirty, write) {
			t.Fatalf("dirty %v, want %v", dirty, write)
		}
		for _, p := range write {
			if !bytes.Equal(tr.Twin(p), entry[p]) {
				t.Fatalf("the twin of written page %d is not its content at Start", p)
			}
		}
		// An adaptive tracker may find the extent too small for a
		// scan to pay (costs.plainOnly, from timings: a loaded machine's
		// slow system calls) and copy all of it, as a bare region does.
		bare := mode == uffdModeAdaptive && tr.(*lazyTracker).bare
		if got := twinData(tr, pages); wantTwins >= 0 && got > wantTwins && !bare {
			t.Fatalf("%d twin pages resident after the region, want at most %d", got, wantTwins)
		}
	}
	mixed := func(n int) int {
		if mode == uffdModePlain {
			return n
		}
		return -1
	}
	// Sequential code filled the memory; the first region may write
	// chunks 2 and 3 only.
	region(chunkHint(2, 4, false), []int{2*chunkPages + 1, 3*chunkPages + 5}, 2*chunkPages+1)
	// Another node holds chunk 3 now.
	var inval []int
	for p := 3 * chunkPages; p < 4*chunkPages; p++ {
		absent[p] = true
		inval = append(inval, p)
	}
	if err := tr.Invalidate(inval); err != nil {
		t.Fatal(err)
	}
	if got := twinData(tr, pages); got > chunkPages+1 {
		t.Fatalf("%d twin pages resident after invalidating a chunk, want at most %d", got, chunkPages+1)
	}
	region(chunkHint(5, 6, true), []int{5*chunkPages + 3}, mixed(2*chunkPages+1))
	region(chunkHint(2, 3, true), []int{2 * chunkPages}, mixed(2*chunkPages+1))
	// Chunks 4 and 6 are filled; the region writes 6 only, so 4's twins
	// go at the Stop, and are kept the next time.
	region(chunkHint(4, 7, true), []int{6*chunkPages + 2}, mixed(3*chunkPages+1))
	region(chunkHint(4, 7, true), []int{6*chunkPages + 2}, mixed(4*chunkPages+1))
	// An unbounded region may write anything: every present page gets
	// its twin, and a write anywhere is seen.
	region(Hint{}, []int{0, 7*chunkPages + 15}, pages-chunkPages)
	if f := rec.pages(); len(f) != 0 {
		t.Fatalf("the tracker read invalidated pages: faults on %v", f)
	}
}

// The randomized sequences of the hint tests (TestUffdHintExact,
// TestUffdHintTransitions, the snapshot regions', TestUffdHintRandomExtents)
// on writes-only trackers: regions over two arrays of rows with bounds,
// sometimes none, writes between regions announced or not, faults and
// compared regions now and then, extents that grow and shrink. Every Stop
// reports exactly the pages the region changed, and the twins of the
// pages its bounds meet are the memory at its Start.
func TestUffdHintWritesOnly(t *testing.T) {
	for _, tc := range []struct {
		transitions bool
		mode        uffdMode
	}{{false, uffdModePlain}, {true, uffdModePlain}, {false, uffdModeSnap}, {true, uffdModeSnap}} {
		c := newMixedCase(t)
		c.u.writesOnly = true
		hintExactOn(c, tc.transitions, tc.mode)
	}
	hintRandomExtents(t, true)
}

// A page installed (Lazy.Install) in a hot chunk whose twins are current
// gets its twin at the next Start, even after a stretch proven clean (an
// installed page is allowed there): its twin was released with the page,
// and the region that does not write it must not report it.
func TestLazyInstallInHotChunk(t *testing.T) {
	const pages = 2 * chunkPages
	ps := unix.Getpagesize()
	mem, tr, absent, _ := newLazyRecorded(t, pages)
	plainRegions(tr)
	const w, p = 3, 5 // same chunk
	for i := range 2 {
		tr.(Hinter).SetHint(Hint{Clean: i > 0})
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		mem[w*ps+8]++
		if _, err := tr.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	absent[p] = true
	if err := tr.Invalidate([]int{p}); err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte{0x5A}, ps)
	if ok, err := tr.Install(p, content); !ok || err != nil {
		t.Fatalf("Install: %v, %v", ok, err)
	}
	absent[p] = false
	tr.(Hinter).SetHint(Hint{Clean: true})
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	mem[w*ps+8]++
	dirty, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{w}; !slices.Equal(dirty, want) {
		t.Fatalf("dirty %v, want %v: the installed page's twin is stale", dirty, want)
	}
	if !bytes.Equal(tr.Twin(p), content) {
		t.Errorf("the twin of the installed page is not its content")
	}
}

// BenchmarkLazyFirstRegions measures what TwinWritesOnly costs a node of
// a Jacobi-like program: two arrays of 32 MiB that sequential code filled,
// regions writing them in turn, the node's quarter of each, the other
// quarters invalidated at the first two releases. first2-ms is the
// Start, writes and Stop of the first two regions (where the twins are
// taken, then released), steady-µs the mean of regions 10 to 29 (where
// nothing is dropped any more), twin-MiB the twin pages resident after
// the first region.
func BenchmarkLazyFirstRegions(b *testing.B) {
	for _, wo := range []bool{false, true} {
		name := "all-twins"
		if wo {
			name = "writes-only"
		}
		b.Run(name, func(b *testing.B) {
			var first, steady time.Duration
			twins, n := 0, 0
			for b.Loop() {
				f, s, tw := lazyFirstRegions(b, wo)
				first, steady, twins, n = first+f, steady+s, twins+tw, n+1
			}
			ps := unix.Getpagesize()
			b.ReportMetric(float64(first.Milliseconds())/float64(n), "first2-ms")
			b.ReportMetric(float64(steady.Microseconds())/float64(n), "steady-µs")
			b.ReportMetric(float64(twins*ps)/float64(n)/(1<<20), "twin-MiB")
		})
	}
}

// lazyFirstRegions runs BenchmarkLazyFirstRegions's program once.
func lazyFirstRegions(b *testing.B, writesOnly bool) (first, steady time.Duration, twins int) {
	const pages, regions = 16384, 30 // two arrays of 32 MiB
	ps := unix.Getpagesize()
	half := pages / 2
	mem, err := unix.Mmap(-1, 0, pages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Munmap(mem)
	for p := range pages {
		mem[p*ps] = byte(p + 1)
	}
	tr, err := NewLazy(mem, Options{}, LazyOptions{Missing: true})
	if errors.Is(err, ErrNotSupported) {
		testenv.Skip(b, "%v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	if writesOnly {
		tr.TwinWritesOnly()
	}
	absent := make([]bool, pages) // a bit test on a node (pager.Helper.Invalid)
	tr.SetAbsent(func(p int) bool { return absent[p] })
	for r := range regions {
		g := r % 2
		lo := g*half + half/4 // this node's quarter of array g
		tr.(Hinter).SetHint(Hint{Clean: r > 0, Bounded: true, Writes: []Span{{Off: g * half * ps, Len: half * ps}}})
		t := time.Now()
		if err := tr.Start(len(mem)); err != nil {
			b.Fatal(err)
		}
		for p := lo; p < lo+half/4; p++ {
			mem[p*ps+8]++
		}
		if _, err := tr.Stop(); err != nil {
			b.Fatal(err)
		}
		switch d := time.Since(t); {
		case r < 2:
			first += d
		case r >= 10:
			steady += d / (regions - 10)
		}
		if r == 0 {
			twins = twinData(tr, pages)
		}
		if r < 2 {
			// The release: the other nodes' quarters of array g.
			var inval []int
			for p := g * half; p < (g+1)*half; p++ {
				if p < lo || p >= lo+half/4 {
					inval = append(inval, p)
					absent[p] = true
				}
			}
			if err := tr.Invalidate(inval); err != nil {
				b.Fatal(err)
			}
		}
	}
	return first, steady, twins
}
