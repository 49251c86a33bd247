//go:build !unix

package cape

// processFaults: this platform does not count page faults.
func processFaults() int64 { return -1 }
