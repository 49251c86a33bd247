//go:build unix

package monitor

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestCompareConformance(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) { return New(BackendCompare, mem, Options{}) })
}

func TestCompleteConformance(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) { return New(BackendComplete, mem, Options{}) })
}

func TestUffdConformance(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) { return New(BackendUffd, mem, Options{}) })
}

func TestAuto(t *testing.T) {
	mem := mapArena(t, 1<<20)
	var notes []string
	tr, err := New(BackendAuto, mem, Options{Notice: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatalf("New(auto): %v", err)
	}
	defer tr.Close()
	switch {
	case tr.Name() == BackendUffd && len(notes) != 0:
		t.Errorf("auto chose the default uffd but gave notices %q", notes)
	case tr.Name() != BackendUffd && (len(notes) != 1 || !strings.Contains(notes[0], tr.Name())):
		t.Errorf("auto fell back to %q; notices %q do not say so", tr.Name(), notes)
	}
	if probeUffd() == nil && tr.Name() != BackendUffd {
		t.Errorf("auto chose %q although uffd works", tr.Name())
	}
	t.Logf("auto: %s", notes)
}

func TestNewErrors(t *testing.T) {
	mem := mapArena(t, 1<<20)
	if _, err := New("nope", mem, Options{}); !errors.Is(err, ErrUnknownBackend) {
		t.Errorf("unknown backend: %v, want ErrUnknownBackend", err)
	}
	ps := os.Getpagesize()
	for name, m := range map[string][]byte{"empty": nil, "short": mem[:ps+1], "unaligned": mem[1 : 1+ps]} {
		if _, err := New(BackendCompare, m, Options{}); !errors.Is(err, ErrInvalidMemory) {
			t.Errorf("%s memory: %v, want ErrInvalidMemory", name, err)
		}
	}
	if _, err := New(BackendCompare, mem, Options{PageSize: 3000}); !errors.Is(err, ErrInvalidMemory) {
		t.Errorf("page size 3000: %v, want ErrInvalidMemory", err)
	}
	for _, b := range Backends() {
		tr, err := New(b, mem, Options{})
		if err != nil {
			if !errors.Is(err, ErrNotSupported) {
				t.Errorf("New(%q): %v, want nil or ErrNotSupported", b, err)
			}
			continue
		}
		if b != BackendAuto && tr.Name() != b {
			t.Errorf("New(%q).Name() = %q", b, tr.Name())
		}
		if err := tr.Close(); err != nil {
			t.Errorf("%s: Close: %v", b, err)
		}
	}
	for _, block := range []int{-1, maxPtraceBlock + 1} {
		if _, err := New(BackendPtrace, mem, Options{PtraceBlock: block}); err == nil {
			t.Errorf("ptrace block %d: no error", block)
		}
	}
	if !slices.Contains(Backends(), BackendCompare) {
		t.Errorf("Backends() = %v lacks compare", Backends())
	}
}

// A compare tracker with a larger page size than the system's works too.
func TestCompareLargePages(t *testing.T) {
	const big = 64 << 10
	mem := mapArena(t, 2<<20)
	off := int((big - uintptr(addrOf(mem))%big) % big)
	mem = mem[off : off+1<<20]
	tr, err := New(BackendCompare, mem, Options{PageSize: big})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	mem[big*3+5]++
	got, err := tr.Stop()
	if err != nil || !slices.Equal(got, []int{3}) {
		t.Fatalf("Stop = %v, %v; want [3]", got, err)
	}
}

func TestPtraceConformance(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) { return New(BackendPtrace, mem, Options{}) })
}
