//go:build linux

package durable

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnpopulated checks that the pages of a fresh mapping read as never
// populated until written, and that hashing takes them for zero pages.
func TestUnpopulated(t *testing.T) {
	ps := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 4*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	mem[ps+1] = 9
	zero := Unpopulated(mem, ps)
	if zero == nil {
		t.Skip("/proc/self/pagemap cannot be read here")
	}
	if want := []bool{true, false, true, true}; len(zero) != 4 || zero[0] != want[0] || zero[1] != want[1] || zero[2] != want[2] || zero[3] != want[3] {
		t.Fatalf("unpopulated pages %v, want %v", zero, want)
	}
	if Unpopulated(mem, ps/2) != nil {
		t.Fatal("pages of another size than the system's were looked up")
	}
	plain := make([]byte, len(mem))
	plain[ps+1] = 9
	if ArenaHash(mem, ps, nil, nil) != ArenaHashZero(plain, ps, nil, nil, nil) {
		t.Fatal("unpopulated pages hash differently from zero pages")
	}
}
