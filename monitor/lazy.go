package monitor

// Lazy is a uffd Tracker that also serves lazy page transfer (package
// cape's "--transfer lazy"): pages of the arena can be invalidated, so that
// their next access faults and a helper process holding the tracker's
// userfaultfd fetches them, and the twins are kept in a memory file that
// the helper maps too, so that it can set the twin of a page it installs.
//
// The tracker always tracks by write faults (never by comparison, which
// would read, and so fetch, every invalidated page). Its methods, like a
// Tracker's, are not safe for concurrent use, except Committed (see there).
type Lazy interface {
	Tracker
	// UffdFD is the userfaultfd, for the helper process; it stays owned
	// by the tracker.
	UffdFD() int
	// TwinFD is the memory file holding the twins (one page of twin per
	// page of memory, at the same offset), for the helper process.
	TwinFD() int
	// Settle refreshes, outside a region, the twins of every page written
	// since the last Start or Settle and write-protects them again, so
	// that afterwards Committed(p) equals the memory of every page and a
	// later Written reports only the writes made since. It does what the
	// next Start would do for those pages.
	Settle() error
	// Written returns, outside a region, the pages written since the last
	// Start or Settle, without re-arming them. The slice is valid until
	// the next call of any method.
	Written() ([]int, error)
	// Committed returns the twin of page p (its content as of the last
	// Start or Settle) for any page the tracker has armed, or nil. It may
	// be called from another goroutine while the tracked memory is being
	// written, but not concurrently with Start or Settle, which write the
	// twins.
	Committed(p int) []byte
	// Invalidate discards, outside a region, the content of the given
	// pages (increasing order) and write-protects them, so that the next
	// access to each faults as missing (for the helper) and Written does
	// not report them.
	Invalidate(pages []int) error
	// Install sets page p to content (one page) where p is missing
	// (invalidated or never touched), atomically, leaving it writable
	// (Start then refreshes its twin); it returns false, changing
	// nothing, when p is present.
	Install(p int, content []byte) (bool, error)
}

// LazyOptions configures NewLazy.
type LazyOptions struct {
	// Missing registers the memory for missing faults too, which only a
	// node whose pages are invalidated needs (a slave). It requires a
	// userfaultfd that also handles faults raised by the kernel (a read(2)
	// into an invalidated page), which only a process with CAP_SYS_PTRACE
	// or vm.unprivileged_userfaultfd=1 may create.
	Missing bool
}
