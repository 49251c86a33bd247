package cape

import (
	"time"

	"github.com/cape-go/cape/cape/internal/fault"
	"github.com/cape-go/cape/internal/nodeenv"
)

// FaultEnv names the environment variable that makes a chosen node fail on
// purpose, for testing how the job copes. Its value is a comma-separated
// list of key=value pairs:
//
//	node=N        the rank that fails (required)
//	at=POINT      init (after joining), start (entering a region), compute
//	              (in the middle of the region's work: after=DUR past its
//	              start), create (a region's work is done, before its delta is
//	              made), send (before the exchange), broadcast (a slave's
//	              delta is sent, the merged delta is on its way), exchange
//	              (after it: between regions), stdin (node=0 only, with
//	              do=cut: the master's standard input stream, after=DUR
//	              past its start)
//	do=ACTION     crash (SIGKILL itself), exit (status 3), stall (SIGSTOP
//	              itself: a hung node whose connections stay open but silent),
//	              drop (close its connections, then wait forever), pause
//	              (SIGSTOP itself for=DUR, then go on: a straggler), cut
//	              (at=stdin: reset the master's input connections to the
//	              slaves, as a network cut would)
//	region=K      only in the K-th region (1-based; default: the first one reached)
//	after=DUR     with at=compute: how long after the region's start (default 10ms);
//	              with at=stdin: after the stream's start
//	for=DUR       with do=pause: how long the node stays stopped (default 3s)
//
// For example CAPE_FAULT=node=2,at=create,do=crash kills node 2 in the middle
// of the first region. Several faults are separated by semicolons
// (node=1,at=create,do=crash;node=2,at=start,do=drop,region=3); each fires
// once.
const FaultEnv = nodeenv.Fault

// fault fails on purpose if the configured fault matches this point. At
// start it also arms a compute fault, which fires from a goroutine while
// the region's work runs.
func (n *node) fault(at string, region uint64) {
	f, deferred := n.faults.At(n.rank, at, region)
	switch {
	case f == nil:
	case deferred:
		go func() {
			time.Sleep(f.After)
			n.inject(f, "compute", region)
		}()
	default:
		n.inject(f, at, region)
	}
}

// inject carries out fault f.
func (n *node) inject(f *fault.Spec, at string, region uint64) {
	notice("cape: %s: injected fault: %s at %s (region #%d)\n", n.name, f.Do, at, region)
	switch f.Do {
	case "pause":
		pauseSelf(f.Pause)
		return
	case "crash":
		killSelf()
	case "exit":
		exit(3, "")
	case "stall":
		stopSelf()
	case "drop":
		if n.master != nil {
			_ = n.master.Close()
		}
		if n.slave != nil {
			_ = n.slave.Close()
		}
	}
	for {
		time.Sleep(time.Hour)
	}
}
