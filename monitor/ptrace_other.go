//go:build !(linux && amd64)

package monitor

import (
	"fmt"
	"runtime"
)

func newPtrace(mem []byte, pageSize, block int) (Tracker, error) {
	return nil, fmt.Errorf("%w: ptrace needs Linux on amd64, this is %s/%s", ErrNotSupported, runtime.GOOS, runtime.GOARCH)
}
