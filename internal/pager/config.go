package pager

import "time"

// HelperEnv, set to "1" in the environment, turns the process into a
// pager helper before main runs (Linux only).
const HelperEnv = "CAPE_PAGER_HELPER"

// Config describes the node to a new helper.
type Config struct {
	Rank, Size  int
	Job         uint64
	Token       []byte
	Master      string        // the page server's host:port
	PeerTimeout time.Duration // 0: the transport's default
	Base        uint64        // the arena's address
	ArenaSize   int
	PageSize    int
	UffdFD      int // the tracker's userfaultfd (monitor.Lazy.UffdFD)
	TwinFD      int // the tracker's twin file (monitor.Lazy.TwinFD)
}
