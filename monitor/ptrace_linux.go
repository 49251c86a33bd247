package monitor

import "fmt"

func newPtrace(mem []byte, pageSize int) (Tracker, error) {
	return nil, fmt.Errorf("%w: ptrace backend not implemented yet", ErrNotSupported)
}
