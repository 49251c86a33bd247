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
	Master      string        // the page server's host:port (lazy transfer: the master serves every page)
	PeerTimeout time.Duration // 0: the transport's default
	Base        uint64        // the arena's address
	ArenaSize   int
	PageSize    int
	// Serve, for distributed homes, makes the helper also serve the pages
	// the node holds (from the snapshot file it shares with the node) on
	// a port it opens on ServeHost: Start returns once it listens (Port),
	// and Connect gives it the other nodes' servers.
	Serve     bool
	ServeHost string
	UffdFD    int // the tracker's userfaultfd (monitor.Lazy.UffdFD)
	TwinFD    int // the tracker's twin file (monitor.Lazy.TwinFD)
}
