package launch

import (
	"fmt"
)

// Descriptors a job needs, per node and overall: cape run holds a node's
// stdout and stderr pipes and its token pipe (or its ssh client's stdin),
// and the master one connection per slave besides its relay links; the
// constant covers the rest (listener, build, Go runtime).
const (
	fdsPerNode = 3
	fdsFixed   = 64
)

// CheckNodes refuses, before anything is started, a job of more nodes than
// this process can hold the descriptors of (RLIMIT_NOFILE, which the Go
// runtime raises to the hard limit), instead of failing after hundreds of
// nodes were started. The error names the limit and the knob.
func CheckNodes(nodes int) error {
	if nodes < 1 {
		return fmt.Errorf("%d nodes: want at least 1", nodes)
	}
	limit, ok := fdLimit()
	if !ok {
		return nil // unknown: let the launch tell
	}
	if need := uint64(nodes)*fdsPerNode + fdsFixed; need > limit {
		return fmt.Errorf("%d nodes need about %d file descriptors (%d per node), but the limit is %d "+
			"(RLIMIT_NOFILE: raise it with `ulimit -n`, or run at most %d nodes)",
			nodes, need, fdsPerNode, limit, (limit-fdsFixed)/fdsPerNode)
	}
	return nil
}
