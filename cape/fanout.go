package cape

import (
	"runtime"
	"sync"

	"github.com/cape-go/cape/transport"
)

// fanoutMin is the number of slaves from which the automatic fan-out
// writes the master's releases concurrently, where the master has at
// least fanoutCores cores. Written one after another, the writes took
// 14 µs a slave on the 2-core VM (most of the releases' time); a goroutine
// per slave costs its start and wake-up. Measured on 16 cores (RESULTS.md,
// "Sixteen cores again"), the concurrent writes paid from 15 nodes on,
// not at 4 or 8.
const (
	fanoutMin   = 8
	fanoutCores = 4
)

// parallelFanout reports whether the master writes its n releases
// concurrently (CAPE_FANOUT: auto, serial or parallel).
func (n *node) parallelFanout(count int) bool {
	switch n.cfg.Fanout {
	case "serial":
		return false
	case "parallel":
		return count > 1
	}
	return count >= fanoutMin && runtime.GOMAXPROCS(0) >= fanoutCores
}

// sendAll sends msgs[i] to the slave ranks[i] and returns each send's
// error in errs[i] (nil where it succeeded). Concurrently, if
// parallelFanout says so: each slave but the first is written by a
// goroutine of its own, the first by the caller's.
func (n *node) sendAll(ranks []int, msgs []transport.Message, errs []error) {
	if !n.parallelFanout(len(ranks)) {
		for i, rank := range ranks {
			errs[i] = n.master.Send(rank, msgs[i])
		}
		return
	}
	var wg sync.WaitGroup
	for i := 1; i < len(ranks); i++ {
		wg.Go(func() { errs[i] = n.master.Send(ranks[i], msgs[i]) })
	}
	errs[0] = n.master.Send(ranks[0], msgs[0])
	wg.Wait()
}
