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

// LocalNodesPerCore and MinLocalNodes bound the nodes of a job on one
// machine: every node connects to every other's page server as the job
// starts, and far more processes than cores cannot finish that before
// their peers give up (128 nodes on 2 cores failed after a minute).
const (
	LocalNodesPerCore = 8
	MinLocalNodes     = 64
)

// CheckLocalNodes refuses, before anything is built or started, a job of
// more nodes on this machine than its cores can start: at most
// LocalNodesPerCore per core, and never fewer than MinLocalNodes.
func CheckLocalNodes(nodes, cores int) error {
	limit := max(MinLocalNodes, LocalNodesPerCore*cores)
	if nodes > limit {
		return fmt.Errorf("%d nodes on this machine's %d cores: at most %d can start on one machine (every node connects to every other as the job starts); run fewer (one node per core runs fastest), or spread them over hosts with --hostfile", nodes, cores, limit)
	}
	return nil
}
