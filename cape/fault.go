package cape

import (
	"fmt"
	"os"
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
//	at=POINT      init (after joining), start (entering a region), create
//	              (a region's work is done, before its delta is made), send
//	              (before the exchange), exchange (after it)
//	do=ACTION     crash (SIGKILL itself), exit (status 3), stall (SIGSTOP
//	              itself: a hung node whose connections stay open but silent),
//	              drop (close its connections, then wait forever)
//	region=K      only in the K-th region (1-based; default: the first one reached)
//
// For example CAPE_FAULT=node=2,at=create,do=crash kills node 2 in the middle
// of the first region.
const FaultEnv = nodeenv.Fault

// faultSpec is a parsed CAPE_FAULT: where and how this job fails on purpose.
type faultSpec struct {
	node   int
	at     string
	do     string
	region uint64
}

var faultPoints = []string{"init", "start", "create", "send", "exchange"}

func parseFault(s string) (*faultSpec, error) {
	if s == "" {
		return nil, nil
	}
	f := &faultSpec{node: -1}
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
			if !contains([]string{"crash", "exit", "stall", "drop"}, v) {
				return nil, fmt.Errorf("%s: do=%q: want crash, exit, stall or drop", FaultEnv, v)
			}
			f.do = v
		case "region":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n == 0 {
				return nil, fmt.Errorf("%s: region=%q: want a region number from 1", FaultEnv, v)
			}
			f.region = n
		default:
			return nil, fmt.Errorf("%s: unknown key %q (want node, at, do, region)", FaultEnv, k)
		}
	}
	if f.node < 0 || f.at == "" || f.do == "" {
		return nil, fmt.Errorf("%s=%q: node, at and do are required", FaultEnv, s)
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

// fault fails on purpose if the configured fault matches this point.
func (n *node) fault(at string, region uint64) {
	f := n.faults
	if f == nil || f.node != n.rank || f.at != at || (f.region != 0 && region != f.region) {
		return
	}
	fmt.Fprintf(os.Stderr, "cape: %s: injected fault: %s at %s (region #%d)\n", n.name, f.do, at, region)
	switch f.do {
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
