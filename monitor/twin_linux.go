package monitor

import "golang.org/x/sys/unix"

// twinMapFlags: MAP_NORESERVE keeps a twin reserved for a multi-GiB arena
// from being charged against the overcommit limit.
const twinMapFlags = unix.MAP_PRIVATE | unix.MAP_ANONYMOUS | unix.MAP_NORESERVE
