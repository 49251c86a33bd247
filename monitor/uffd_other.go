//go:build !linux

package monitor

import (
	"fmt"
	"runtime"
)

func newUffd(mem []byte, pageSize int) (Tracker, error) {
	return nil, fmt.Errorf("%w: uffd needs Linux 6.7 or later, this is %s", ErrNotSupported, runtime.GOOS)
}

func probeUffd() error {
	return fmt.Errorf("%w: uffd needs Linux 6.7 or later, this is %s", ErrNotSupported, runtime.GOOS)
}
