//go:build unix

package monitor

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// strictEnv names the environment variable that turns skips for a missing
// kernel feature or privilege into failures.
const strictEnv = "CAPE_TEST_STRICT"

// skipUnsupported skips t, or fails it when CAPE_TEST_STRICT=1, saying what
// is missing.
func skipUnsupported(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(strictEnv) == "1" {
		t.Fatalf(format+" ("+strictEnv+"=1)", args...)
	}
	t.Skipf(format, args...)
}

// newOrSkip calls New and skips (or fails under CAPE_TEST_STRICT=1) when
// the backend is not supported here.
func newOrSkip(t testing.TB, backend string, mem []byte) Tracker {
	t.Helper()
	tr, err := New(backend, mem, Options{})
	if errors.Is(err, ErrNotSupported) {
		skipUnsupported(t, "%s backend: %v", backend, err)
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
