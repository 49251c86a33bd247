package cape

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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

// faultSpec is a parsed CAPE_FAULT: where and how this job fails on purpose.
type faultSpec struct {
	node   int
	at     string
	do     string
	region uint64
	after  time.Duration // at=compute
	pause  time.Duration // do=pause
}

var (
	faultPoints  = []string{"init", "start", "compute", "create", "send", "broadcast", "exchange", "stdin"}
	faultActions = []string{"crash", "exit", "stall", "drop", "pause", "cut"}
)

// parseFaults parses a CAPE_FAULT value: faults separated by semicolons.
func parseFaults(s string) ([]*faultSpec, error) {
	var fs []*faultSpec
	for _, one := range strings.Split(s, ";") {
		f, err := parseFault(strings.TrimSpace(one))
		if err != nil {
			return nil, err
		}
		if f != nil {
			fs = append(fs, f)
		}
	}
	return fs, nil
}

// parseFault parses one fault.
func parseFault(s string) (*faultSpec, error) {
	if s == "" {
		return nil, nil
	}
	f := &faultSpec{node: -1, after: 10 * time.Millisecond, pause: 3 * time.Second}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not key=value", FaultEnv, kv)
		}
		switch k {
		case "node":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s: node=%q: want a rank", FaultEnv, v)
			}
			f.node = n
		case "at":
			if !contains(faultPoints, v) {
				return nil, fmt.Errorf("%s: at=%q: want one of %s", FaultEnv, v, strings.Join(faultPoints, ", "))
			}
			f.at = v
		case "do":
			if !contains(faultActions, v) {
				return nil, fmt.Errorf("%s: do=%q: want one of %s", FaultEnv, v, strings.Join(faultActions, ", "))
			}
			f.do = v
		case "after", "for":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("%s: %s=%q: want a duration such as 50ms", FaultEnv, k, v)
			}
			if k == "after" {
				f.after = d
			} else {
				f.pause = d
			}
		case "region":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n == 0 {
				return nil, fmt.Errorf("%s: region=%q: want a region number from 1", FaultEnv, v)
			}
			f.region = n
		default:
			return nil, fmt.Errorf("%s: unknown key %q (want node, at, do, region, after, for)", FaultEnv, k)
		}
	}
	if f.node < 0 || f.at == "" || f.do == "" {
		return nil, fmt.Errorf("%s=%q: node, at and do are required", FaultEnv, s)
	}
	if (f.at == "stdin") != (f.do == "cut") || (f.at == "stdin" && f.node != 0) {
		return nil, fmt.Errorf("%s=%q: do=cut goes with at=stdin and node=0 (the master cuts its input stream)", FaultEnv, s)
	}
	return f, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fault fails on purpose if the configured fault matches this point. At
// start it also arms a compute fault, which fires from a goroutine while
// the region's work runs.
func (n *node) fault(at string, region uint64) {
	for i, f := range n.faults {
		if f.node != n.rank || (f.region != 0 && region != f.region) {
			continue
		}
		if at == "start" && f.at == "compute" {
			n.faults = slices.Delete(n.faults, i, i+1) // once
			go func() {
				time.Sleep(f.after)
				n.inject(f, "compute", region)
			}()
			return
		}
		if f.at == at {
			// Once: a straggler that goes on must not fail again.
			n.faults = slices.Delete(n.faults, i, i+1)
			n.inject(f, at, region)
			return
		}
	}
}

// inject carries out fault f.
func (n *node) inject(f *faultSpec, at string, region uint64) {
	notice("cape: %s: injected fault: %s at %s (region #%d)\n", n.name, f.do, at, region)
	switch f.do {
	case "pause":
		pauseSelf(f.pause)
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
