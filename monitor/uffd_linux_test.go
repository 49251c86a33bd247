package monitor

import (
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

// The adaptive policy moves to comparison after a region that wrote most
// pages, and back after one that wrote few.
func TestUffdAdaptiveSwitch(t *testing.T) {
	mem := mapArena(t, 1<<20)
	tr := newOrSkip(t, BackendUffd, mem)
	u := tr.(*uffdTracker)
	ps := tr.PageSize()
	region := func(every int) []int {
		t.Helper()
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(mem); i += every * ps {
			mem[i]++
		}
		d, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var modes []bool
	for _, every := range []int{1, 1, 1, 16, 16, 1} {
		d := region(every)
		if want := len(mem) / ps / every; len(d) != want {
			t.Fatalf("region writing every %d pages: %d pages reported, want %d", every, len(d), want)
		}
		modes = append(modes, u.compare)
	}
	want := []bool{false, true, true, true, false, false}
	if !slices.Equal(modes, want) {
		t.Errorf("compared regions %v, want %v", modes, want)
	}
}

// uffdModeConfigs are the uffd backend with its tracking mode forced, for
// BenchmarkDenseLoop: always write faults, always comparison.
var uffdModeConfigs = []benchConfig{
	{name: "uffd-faults", backend: BackendUffd, setup: func(tr Tracker) { tr.(*uffdTracker).mode = uffdModeFaults }},
	{name: "uffd-compare", backend: BackendUffd, setup: func(tr Tracker) { tr.(*uffdTracker).mode = uffdModeCompare }},
}
