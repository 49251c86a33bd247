package monitor

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
	"github.com/cape-go/cape/internal/uffd"
	"golang.org/x/sys/unix"
)

// A three-entry PAGEMAP_SCAN vector forces the continuation path of scan
// (the vector fills up) on almost every call.
func TestUffdConformanceSmallVector(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) {
		tr, err := New(BackendUffd, mem, Options{})
		if err != nil {
			return nil, err
		}
		tr.(*uffdTracker).vec = make([]uffd.PageRegion, 3)
		return tr, nil
	})
}

// Transparent huge pages must be split at the first write, not reported as
// 512 written pages.
func TestUffdConformanceHugePages(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) {
		if err := unix.Madvise(mem, unix.MADV_HUGEPAGE); err != nil {
			testenv.Skip(t, "madvise(MADV_HUGEPAGE): %v (CONFIG_TRANSPARENT_HUGEPAGE)", err)
		}
		for i := 0; i < len(mem); i += 4096 {
			mem[i] = 1 // populate, with huge pages where the kernel can
		}
		return New(BackendUffd, mem, Options{})
	})
}

// Unmapping the arena before Close must not make Close fail.
func TestUffdCloseAfterUnmap(t *testing.T) {
	mem, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	tr := newOrSkip(t, BackendUffd, mem)
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	if err := unix.Munmap(mem); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatalf("Close after munmap: %v", err)
	}
}

func uffdWithMode(mode uffdMode) func(mem []byte) (Tracker, error) {
	return func(mem []byte) (Tracker, error) {
		tr, err := New(BackendUffd, mem, Options{})
		if err != nil {
			return nil, err
		}
		tr.(*uffdTracker).mode = mode
		return tr, nil
	}
}

func TestUffdConformanceFaults(t *testing.T)    { runConformance(t, uffdWithMode(uffdModeFaults)) }
func TestUffdConformanceCompare(t *testing.T)   { runConformance(t, uffdWithMode(uffdModeCompare)) }
func TestUffdConformanceAlternate(t *testing.T) { runConformance(t, uffdWithMode(uffdModeAlternate)) }

func TestUffdConformancePlain(t *testing.T) { runConformance(t, uffdWithMode(uffdModePlain)) }

// frozenCosts sets the tracker's cost figures (ns per fault, per page
// copied, per page compared; protecting a page costs nothing) and keeps
// them from being measured.
func frozenCosts(u *uffdTracker, fault, copyNS, cmpNS float64) {
	u.costs.frozen = true
	c := &u.costs
	c.fault, c.copyNS, c.cmpNS, c.wpNS, c.bulkNS, c.callNS = window{}, window{}, window{}, window{}, window{}, window{}
	c.fault.add(fault)
	c.copyNS.add(copyNS)
	c.cmpNS.add(cmpNS)
	c.wpNS.add(0)
}

// adaptiveRun runs one region per entry of pattern on a fresh tracker with
// the given cost figures: the region writes every every-th page of the
// memory but its last between pages, which are then written outside the
// region. It checks every Stop and twin and
// returns the kind each region was tracked with.
func adaptiveRun(t *testing.T, fault float64, pattern []struct{ every, between int }, tracker ...**uffdTracker) []regionKind {
	t.Helper()
	mem := mapArena(t, 1<<20)
	tr := newOrSkip(t, BackendUffd, mem)
	u := tr.(*uffdTracker)
	for _, p := range tracker {
		*p = u
	}
	frozenCosts(u, fault, 500, 500)
	ps := tr.PageSize()
	var kinds []regionKind
	for i, r := range pattern {
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		entry := append([]byte(nil), mem...)
		var want []int
		half := len(mem) - r.between*ps
		for off := 0; off < half; off += r.every * ps {
			mem[off+8*i]++
			want = append(want, off/ps)
		}
		d, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d, want) {
			t.Fatalf("region %d (%v): Stop = %v, want %v", i, u.kind, d, want)
		}
		for _, p := range d {
			if !slices.Equal(tr.Twin(p), entry[p*ps:(p+1)*ps]) {
				t.Fatalf("region %d (%v): twin of page %d is not its content at Start", i, u.kind, p)
			}
		}
		kinds = append(kinds, u.kind)
		for off := half; off < half+r.between*ps; off += ps {
			mem[off+8*i+1]++
		}
	}
	return kinds
}

// The adaptive policy moves to comparison after a region that wrote most
// pages, when a fault costs about what copying a page does. A compared
// region sees only the pages it changed, so after exploreFirst compared
// regions one samples the pages it writes, and write faults come back when
// the sample says the region writes few.
func TestUffdAdaptiveSwitch(t *testing.T) {
	got := adaptiveRun(t, 1000, []struct{ every, between int }{
		{1, 0}, {1, 0}, {1, 0}, {16, 0}, {16, 0}, {16, 0}, {16, 0}, {16, 0},
	})
	want := []regionKind{kindFaults, kindCompare, kindCompare, kindCompare, kindCompare, kindCompare, kindFaults, kindFaults}
	if !slices.Equal(got, want) {
		t.Errorf("regions tracked as %v, want %v", got, want)
	}
}

// When faults are expensive (a paravirtualized machine) and pages are also
// written between regions (an injected delta), the regions are plain
// (mixed) and every chunk written stays unprotected; when the writes
// between regions stop, and then the regions become sparse, the tracker
// follows: a compared region, then mixed regions in which the chunks
// nobody writes stay armed.
func TestUffdAdaptivePlain(t *testing.T) {
	dense := struct{ every, between int }{1, 64} // a quarter of the memory between regions
	sparse := struct{ every, between int }{128, 0}
	pattern := []struct{ every, between int }{dense, dense, dense}
	for range 13 {
		pattern = append(pattern, sparse)
	}
	var u *uffdTracker
	got := adaptiveRun(t, 20000, pattern, &u)
	// The first region is plain: a fault costs more than two copies and
	// compares of a page. Plain regions see 192 pages changed, then 2,
	// and count the 64 written between regions; once none are (index 5),
	// comparing the whole memory against persistent twins is estimated
	// cheaper than comparing every chunk, all still hot. That region
	// leaves every chunk armed, and a mixed region then costs the two
	// chunks written (compared) and a scan of the others: cheaper than a
	// fault per page written, and than comparing everything.
	want := []regionKind{kindPlain, kindPlain, kindPlain, kindPlain, kindPlain, kindCompare}
	for len(want) < len(pattern) {
		want = append(want, kindPlain)
	}
	if !slices.Equal(got, want) {
		t.Errorf("regions tracked as %v,\nwant %v", got, want)
	}
	cold := 0
	for _, ch := range u.chunks {
		if ch.state == chunkCold {
			cold++
		}
	}
	if want := len(u.chunks) - 2; cold != want {
		t.Errorf("%d of %d chunks armed after the sparse regions, want %d", cold, len(u.chunks), want)
	}
}

// A compared region that rewrites every page but changes few looks cheap
// to track by faults; a sample of its writes finds it dear, so it stays
// compared, and the next sample waits twice as long.
func TestUffdAdaptiveSampleBackoff(t *testing.T) {
	mem := mapArena(t, 1<<20)
	tr := newOrSkip(t, BackendUffd, mem)
	u := tr.(*uffdTracker)
	frozenCosts(u, 1000, 500, 500)
	ps := tr.PageSize()
	var sampled []int
	for i := range 24 {
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		if len(u.sample) > 0 {
			sampled = append(sampled, i)
		}
		for off := 0; off < len(mem); off += ps {
			sameStore(mem, off) // written, unchanged
		}
		for off := 0; off < len(mem); off += 16 * ps {
			mem[off+8]++
		}
		d, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		want := len(mem) / ps / 16 // changed
		if u.kind == kindFaults {
			want = len(mem) / ps // written
			if i > 0 {
				t.Errorf("region %d tracked by faults", i)
			}
		}
		if len(d) != want {
			t.Fatalf("region %d (%v): Stop reported %d pages, want %d", i, u.kind, len(d), want)
		}
	}
	if want := []int{5, 13}; !slices.Equal(sampled, want) {
		t.Errorf("regions %v sampled, want %v", sampled, want)
	}
	if want := len(mem) / ps; u.costs.writtenFaults != want {
		t.Errorf("sample estimates %d pages written, want %d", u.costs.writtenFaults, want)
	}
}

// The fault probe measures a fault without changing the memory or what
// Stop reports.
func TestUffdFaultProbe(t *testing.T) {
	mem := mapArena(t, 1<<20)
	tr := newOrSkip(t, BackendUffd, mem)
	u := tr.(*uffdTracker)
	ps := tr.PageSize()
	for i := range 12 {
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		snap := append([]byte(nil), mem...)
		mem[3*ps+i]++
		d, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d, []int{3}) {
			t.Fatalf("region %d (%v): Stop = %v, want [3]", i, u.kind, d)
		}
		snap[3*ps+i]++
		if !slices.Equal(snap, mem) {
			t.Fatalf("region %d: the probe changed the memory", i)
		}
	}
	if u.costs.fault.n == 0 || u.costs.fault.median() <= 0 {
		t.Errorf("no fault measured after 12 regions (%d samples, median %v ns)", u.costs.fault.n, u.costs.fault.median())
	}
}

// uffdModeConfigs are the uffd backend with its tracking mode forced, for
// BenchmarkDenseLoop: always write faults, always comparison.
var uffdModeConfigs = []benchConfig{
	{name: "uffd-faults", backend: BackendUffd, setup: func(tr Tracker) { tr.(*uffdTracker).mode = uffdModeFaults }},
	{name: "uffd-compare", backend: BackendUffd, setup: func(tr Tracker) { tr.(*uffdTracker).mode = uffdModeCompare }},
	{name: "uffd-plain", backend: BackendUffd, setup: func(tr Tracker) { tr.(*uffdTracker).mode = uffdModePlain }},
}

// reportCosts reports the cost figures an adaptive uffd tracker measured.
func reportCosts(b *testing.B, tr Tracker) {
	u, ok := tr.(*uffdTracker)
	if !ok || u.mode != uffdModeAdaptive {
		return
	}
	c := &u.costs
	b.ReportMetric(c.fault.median(), "uffd-fault-ns")
	b.ReportMetric(c.copyNS.median(), "uffd-copy-ns/page")
	b.ReportMetric(c.cmpNS.median(), "uffd-compare-ns/page")
	b.ReportMetric(c.bulkNS.median(), "uffd-bulk-copy-ns/page")
	b.ReportMetric(c.wpNS.median(), "uffd-protect-ns/page")
}

// On a small extent whose calls cost more than copying and comparing it,
// the adaptive tracker tracks plain regions without a fault probe or any
// write-protection left armed, and still reports exactly what each region
// wrote.
func TestUffdSmallExtentPlain(t *testing.T) {
	mem := mapArena(t, 1<<20)
	tr := newOrSkip(t, BackendUffd, mem)
	u := tr.(*uffdTracker)
	frozenCosts(u, 50000, 100, 100)
	u.costs.callNS.add(30000)
	u.costs.frozen = false // a probe would add a fault figure
	ps := tr.PageSize()
	for i := range 20 {
		if err := tr.Start(4 * ps); err != nil {
			t.Fatal(err)
		}
		entry := append([]byte(nil), mem[:4*ps]...)
		mem[(i%4)*ps+i]++
		d, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d, []int{i % 4}) {
			t.Fatalf("region %d (%v): Stop = %v, want [%d]", i, u.kind, d, i%4)
		}
		if !slices.Equal(tr.Twin(i%4), entry[(i%4)*ps:(i%4+1)*ps]) {
			t.Fatalf("region %d: twin of page %d is not its content at Start", i, i%4)
		}
		if u.kind != kindPlain || u.armed != 0 {
			t.Fatalf("region %d: kind %v with %d bytes armed, want plain with none", i, u.kind, u.armed)
		}
		mem[((i+1)%4)*ps]++ // between regions
	}
	if u.costs.fault.n != 1 {
		t.Errorf("%d fault figures, want only the one set: the small regions probed faults", u.costs.fault.n)
	}
}

// BenchmarkSmallRegion measures the fixed cost of the small regions of an
// iterative loop (cape bench regions): an extent of a few pages, one page
// written per region, adaptive tracking. kind-X counts the regions of each
// kind.
func BenchmarkSmallRegion(b *testing.B) {
	for _, pages := range []int{2, 16, 64} {
		b.Run(fmt.Sprintf("uffd/pages=%d", pages), func(b *testing.B) {
			mem := mapArena(b, 1<<20)
			tr := newBench(b, benchConfig{name: "uffd", backend: BackendUffd}, mem)
			ps := tr.PageSize()
			extent := pages * ps
			var kinds [numKinds]int
			i := 0
			for b.Loop() {
				if err := tr.Start(extent); err != nil {
					b.Fatal(err)
				}
				mem[ps+8*(i%64)]++
				if _, err := tr.Stop(); err != nil {
					b.Fatal(err)
				}
				if u, ok := tr.(*uffdTracker); ok {
					kinds[u.kind]++
				}
				i++
			}
			for k, n := range kinds {
				b.ReportMetric(float64(n)/float64(b.N), "kind-"+regionKind(k).String())
			}
			reportCosts(b, tr)
		})
	}
}

// Mixed regions, and snapshot regions wherever a hint allows one.
func TestUffdConformanceSnap(t *testing.T) { runConformance(t, uffdWithMode(uffdModeSnap)) }
