package monitor

import "golang.org/x/sys/unix"

// twinMapFlags: MAP_NORESERVE keeps a twin reserved for a multi-GiB arena
// from being charged against the overcommit limit.
const twinMapFlags = unix.MAP_PRIVATE | unix.MAP_ANONYMOUS | unix.MAP_NORESERVE

// adviseTwin asks for transparent huge pages on the twin (with THP in
// "madvise" mode, the common default, nothing else gets them): the first
// Start populates it with one fault per 2 MiB instead of one per page, and
// the copies and comparisons that follow miss the TLB 512 times less. The
// twin is only read and written by this package, so unlike the arena it
// has no reason to stay in small pages. Failure (no THP) is harmless.
func adviseTwin(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
