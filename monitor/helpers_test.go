//go:build unix

package monitor

import (
	"errors"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
	"golang.org/x/sys/unix"
)

// newOrSkip calls New and skips (or fails under CAPE_TEST_STRICT=1) when
// the backend is not supported here.
func newOrSkip(t testing.TB, backend string, mem []byte) Tracker {
	t.Helper()
	tr, err := New(backend, mem, Options{})
	if errors.Is(err, ErrNotSupported) {
		testenv.Skip(t, "%s backend: %v", backend, err)
	}
	if err != nil {
		t.Fatalf("New(%q): %v", backend, err)
	}
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return tr
}

// mapArena maps size bytes of private anonymous memory the way the arena
// is mapped, and unmaps it when the test ends.
func mapArena(t testing.TB, size int) []byte {
	t.Helper()
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatalf("mmap %d bytes: %v", size, err)
	}
	t.Cleanup(func() {
		if err := unix.Munmap(mem); err != nil {
			t.Errorf("munmap: %v", err)
		}
	})
	return mem
}
