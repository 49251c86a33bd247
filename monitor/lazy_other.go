//go:build !linux

package monitor

import "fmt"

// NewLazy returns ErrNotSupported: lazy pages need Linux's userfaultfd.
func NewLazy(mem []byte, opts Options, lo LazyOptions) (Lazy, error) {
	return nil, fmt.Errorf("%w: lazy pages need Linux's userfaultfd", ErrNotSupported)
}
