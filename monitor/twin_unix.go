//go:build unix

package monitor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// hugeTwins enables adviseTwin; benchmarks turn it off to measure it.
var hugeTwins = true

// newTwin reserves size bytes of anonymous memory, populated lazily by the
// kernel as the twin grows.
func newTwin(size int) (*twin, error) {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, twinMapFlags)
	if err != nil {
		return nil, fmt.Errorf("reserve %d bytes for twins: %w", size, err)
	}
	if hugeTwins {
		adviseTwin(b)
	}
	return &twin{buf: b, file: -1, release: func() error {
		if err := unix.Munmap(b); err != nil {
			return fmt.Errorf("release twins: %w", err)
		}
		return nil
	}}, nil
}
