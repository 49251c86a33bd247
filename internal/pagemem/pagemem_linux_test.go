package pagemem

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// resident counts the pages of b in memory (mincore).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+unix.Getpagesize()-1)/unix.Getpagesize())
	if err := Mincore(b, vec); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestPopulate: the whole pages inside a range are in memory afterwards,
// the partial pages at its ends are not touched, and the content is kept.
func TestPopulate(t *testing.T) {
	ps := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 8*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	mem[2*ps+5] = 7
	if got := resident(t, mem); got != 1 {
		t.Fatalf("%d pages resident before, want 1", got)
	}
	Populate(mem[ps/2 : 6*ps+ps/2]) // whole pages 1 to 5
	for p := range 8 {
		want := p >= 1 && p <= 5
		if got := resident(t, mem[p*ps:(p+1)*ps]) == 1; got != want {
			t.Errorf("page %d resident %v, want %v", p, got, want)
		}
	}
	if mem[2*ps+5] != 7 {
		t.Fatal("Populate changed the content")
	}
	if err := Madvise(mem[ps:6*ps], unix.MADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	if got := resident(t, mem); got != 0 || mem[2*ps+5] != 0 {
		t.Fatalf("after MADV_DONTNEED: %d pages resident, byte %d; want none, 0", got, mem[2*ps+5])
	}
}

// TestFaults: the first write to each page of a fresh mapping is a page
// fault that Faults counts, for the process and for the thread.
func TestFaults(t *testing.T) {
	const pages = 64
	ps := unix.Getpagesize()
	for _, thread := range []bool{false, true} {
		mem, err := unix.Mmap(-1, 0, pages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			t.Fatal(err)
		}
		runtime.LockOSThread()
		before := Faults(thread)
		for p := range pages {
			mem[p*ps] = 1
		}
		got := Faults(thread) - before
		runtime.UnlockOSThread()
		if err := unix.Munmap(mem); err != nil {
			t.Fatal(err)
		}
		if before < 0 || got < pages {
			t.Fatalf("thread %v: first writes to %d pages: %d page faults counted (from %d), want at least %d", thread, pages, got, before, pages)
		}
	}
}
