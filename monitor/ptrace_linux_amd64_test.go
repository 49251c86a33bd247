package monitor

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/testenv"
)

// Running out of mappings (vm.max_map_count) part way through a region
// falls back to comparing the pages not caught yet.
// With blocks, too.
func TestPtraceConformanceOverflow(t *testing.T) {
	for _, block := range []int{1, 16} {
		t.Run(fmt.Sprint("block=", block), func(t *testing.T) {
			runConformance(t, func(mem []byte) (Tracker, error) {
				return newPtraceHooked(mem, os.Getpagesize(), block, 5)
			})
		})
	}
}

// Every block size keeps the dirty set exact: pages unprotected with a
// faulting neighbour are reported only if they changed. 5 is not a power
// of two and 1024 covers the whole 4 MiB conformance arena.
func TestPtraceConformanceBlocks(t *testing.T) {
	for _, block := range []int{1, 5, 64, 1024} {
		t.Run(fmt.Sprint("block=", block), func(t *testing.T) {
			runConformance(t, func(mem []byte) (Tracker, error) {
				return New(BackendPtrace, mem, Options{PtraceBlock: block})
			})
		})
	}
}

// A page of the block that is unprotected but rewritten with its own bytes
// is not reported; the faulting page is, even if its bytes did not change.
func TestPtraceBlockUnchanged(t *testing.T) {
	mem := mapArena(t, 1<<20)
	ps := os.Getpagesize()
	tr, err := New(BackendPtrace, mem, Options{PtraceBlock: 8})
	if errors.Is(err, ErrNotSupported) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	sameStore(mem, 2*ps) // faults: page 2 unprotects pages 0-7
	sameStore(mem, 3*ps) // no fault, unchanged: not reported
	mem[5*ps+9]++        // no fault, changed: reported
	mem[9*ps+1] = 7      // faults in the next block
	got, err := tr.Stop()
	if err != nil || !slices.Equal(got, []int{2, 5, 9}) {
		t.Fatalf("Stop = %v, %v; want [2 5 9]", got, err)
	}
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
