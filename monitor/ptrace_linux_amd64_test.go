package monitor

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"
)

// Running out of mappings (vm.max_map_count) part way through a region
// falls back to comparing the pages not caught yet.
func TestPtraceConformanceOverflow(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) {
		return newPtraceHooked(mem, os.Getpagesize(), 5)
	})
}

// Signals other than the arena's write faults reach the node as usual: a
// nil dereference still panics, a signal the node waits for arrives.
func TestPtraceSignalsPassThrough(t *testing.T) {
	mem := mapArena(t, 1<<20)
	tr := newOrSkip(t, BackendPtrace, mem)
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	mem[10]++
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("nil dereference did not panic")
			}
		}()
		var p *int
		*p = 1
	}()
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	defer signal.Stop(ch)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Error("SIGUSR1 not delivered")
	}
	got, err := tr.Stop()
	if err != nil || !slices.Equal(got, []int{0}) {
		t.Fatalf("Stop = %v, %v; want [0]", got, err)
	}
}
