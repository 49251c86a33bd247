package monitor

import "errors"

// Tracker reports which pages of one memory range (the arena) were written
// between Start and Stop, and keeps for each page its content as of the last
// Start (its twin), so that a byte-exact delta can be computed.
//
// Lifecycle: New → (Start → [parallel code writes] → Stop → Twin reads)* → Close.
// Between Stop and the next Start the caller may write to memory (injection of
// merged deltas, sequential code); those writes never appear in a later Stop's
// result, and the next Start makes the twins current again.
//
// A Tracker is not safe for concurrent use of its methods, but the memory it
// watches may be written by any number of goroutines and OS threads between
// Start and Stop.
type Tracker interface {
	// Name is the backend's name as accepted by --monitor.
	Name() string
	// Start marks the entry of a parallel region. extent is the number of
	// bytes, from the beginning of the range, that are in use (a multiple of
	// the page size, at most the range's length); pages past it are not
	// tracked in this region. When Start returns, Twin(p) equals the current
	// content of every page p below extent.
	Start(extent int) error
	// Stop marks the exit of the region and returns, in increasing order, the
	// index of every page that was written between Start and Stop. Backends
	// that are exact return no page that was not written; the complete
	// backend returns every page below extent. The slice is valid until the
	// next Start.
	Stop() ([]int, error)
	// Twin returns the content of page p as of the last Start. It is valid
	// until the next Start and must not be modified.
	Twin(p int) []byte
	// PageSize is the page size the tracker works with.
	PageSize() int
	// Close releases every resource the tracker holds. It does not unmap the
	// tracked memory.
	Close() error
}

// Sentinel errors.
var (
	// ErrNotSupported is returned by New when a backend cannot run on this
	// platform or kernel. It is wrapped with the reason.
	ErrNotSupported = errors.New("monitor backend not supported")
	// ErrUnknownBackend is returned by New for a name it does not know.
	ErrUnknownBackend = errors.New("unknown monitor backend")
)
