//go:build unix

package cape

import (
	"os"
	"syscall"
	"testing"
)

// TestProcessFaultsCountsFirstTouches: the first write to each page of a
// fresh mapping is a page fault that processFaults counts.
func TestProcessFaultsCountsFirstTouches(t *testing.T) {
	const pages = 64
	ps := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, pages*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	before := processFaults()
	if before < 0 {
		t.Fatal("getrusage counts no page faults")
	}
	for p := range pages {
		mem[p*ps] = 1
	}
	if got := processFaults() - before; got < pages {
		t.Fatalf("first writes to %d pages: %d page faults counted, want at least %d", pages, got, pages)
	}
}
