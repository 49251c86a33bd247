//go:build !linux

package monitor

import (
	"fmt"
	"runtime"
)

func newPtrace(mem []byte, pageSize int) (Tracker, error) {
	return nil, fmt.Errorf("%w: ptrace needs Linux, this is %s", ErrNotSupported, runtime.GOOS)
}
