package monitor

// Lazy is a uffd Tracker that also serves lazy page transfer (package
// cape's "--transfer lazy"): pages of the arena can be invalidated, so that
// their next access faults and a helper process holding the tracker's
// userfaultfd fetches them, and the twins are kept in a memory file that
// the helper maps too, so that it can set the twin of a page it installs.
//
// The tracker chooses how to track each region as the uffd backend does;
// its comparisons skip the absent pages (SetAbsent). Its methods, like a
// Tracker's, are not safe for concurrent use.
type Lazy interface {
	Tracker
	// UffdFD is the userfaultfd, for the helper process; it stays owned
	// by the tracker.
	UffdFD() int
	// TwinFD is the memory file holding the twins (one page of twin per
	// page of memory, at the same offset), for the helper process.
	TwinFD() int
	// SetAbsent tells the tracker which pages are absent: invalidated
	// and not fetched since. They cannot have changed since their twins
	// were right, and reading one would fetch it, so the tracker's copies
	// and comparisons skip them. absent is called from the goroutines of
	// Start and Stop.
	SetAbsent(absent func(p int) bool)
	// Invalidate discards, outside a region, the content of the given
	// pages (increasing order) and write-protects them, so that the next
	// access to each faults as missing (for the helper) and the tracker's
	// scans do not report them as written. The first call with pages
	// registers the memory for missing faults (see LazyOptions.Missing):
	// from then on the helper must be reading the userfaultfd.
	Invalidate(pages []int) error
	// Install sets page p to content (one page) where p is missing
	// (invalidated or never touched), atomically, leaving it writable; the
	// install counts as an announced write between regions (Injector), so
	// the next Start refreshes its twin, under a Clean hint too. It
	// returns false, changing nothing, when p is present.
	Install(p int, content []byte) (bool, error)
	// TwinWritesOnly narrows, from the next Start on, Start's promise
	// about the twins to what a caller needs that reads Twin only for the
	// pages a region wrote (distributed homes): where a region's writes
	// are bounded (Hint), the twins of the pages the extent grows over
	// and the bounds do not meet are not taken, and are taken at the
	// first Start whose region may write them (its bounds meet them, or
	// it is not bounded); and the Stop of such a region releases, once
	// per chunk, the twins its Start took for chunks the region did not
	// write. A node then holds twins for its share of the arrays its
	// regions write, not for every page of its arena. Twin of a page
	// the region did not write may return zeros: read it only for the
	// pages Stop reported.
	TwinWritesOnly()
	// DropTwins releases every twin, outside a region, once the node's
	// last region has ended (package cape's RegionsDone): they hold a
	// page of memory for every page the node wrote or fetched, and no
	// region will read them. The helper must stop writing twins first. A
	// Start after it fails.
	DropTwins() error
	// TwinsFrom says where the caller keeps a copy of the pages it
	// copies after a region (Kept): src(p) returns page p's bytes as of
	// the entry of the region in progress (or, outside one, of the next),
	// or nil. It must stay so until p is kept again, and be safe for
	// concurrent use. From then on the twin of such a page is its copy
	// while the page has not changed since it was kept: the tracker holds
	// none of its own (exttwins_linux.go).
	TwinsFrom(src func(p int) []byte)
	// Kept says that the caller copied the pages [lo, hi), as they are
	// now, where TwinsFrom's src reads them from the next Start on.
	Kept(lo, hi int)
	// UserModeOnly reports whether the userfaultfd handles only faults
	// raised in user mode (LazyOptions.UserMode): then a system call that
	// reads or writes an invalidated page fails with EFAULT, or moves
	// fewer bytes than asked where the buffer starts on a page in memory,
	// instead of waiting for the helper, so the caller must make such
	// pages present from user mode first (a load from each page).
	UserModeOnly() bool
}

// LazyOptions configures NewLazy.
type LazyOptions struct {
	// Missing lets Invalidate be called: the first call registers the
	// memory for missing faults too, which only a node whose pages are
	// invalidated needs (a slave). Until then first touches are the
	// kernel's own zero fills, and no helper process needs to run. It
	// requires a userfaultfd that also handles faults raised by the kernel
	// (a read(2) into an invalidated page), which only a process with
	// CAP_SYS_PTRACE or vm.unprivileged_userfaultfd=1 may create, or a
	// user-mode-only one where UserMode allows it.
	Missing bool
	// UserMode says whether a Missing tracker may use a user-mode-only
	// userfaultfd (UFFD_USER_MODE_ONLY), which any process may create, and
	// whose faults from the kernel fail instead of reaching the helper
	// (Lazy.UserModeOnly).
	UserMode UserMode
}

// UserMode is LazyOptions.UserMode.
type UserMode uint8

const (
	// UserModeNever: a Missing tracker needs a userfaultfd that handles
	// the kernel's faults too, or NewLazy fails.
	UserModeNever UserMode = iota
	// UserModeFallback: such a userfaultfd where this process may create
	// one, else a user-mode-only one.
	UserModeFallback
	// UserModeAlways: a user-mode-only userfaultfd (for tests and
	// measurements of that mode by a privileged user).
	UserModeAlways
)
