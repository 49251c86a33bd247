//go:build !unix

package monitor

// newTwin allocates the twin on the Go heap where mmap is not available.
func newTwin(size int) (*twin, error) {
	return &twin{buf: make([]byte, size), release: func() error { return nil }, file: -1}, nil
}
