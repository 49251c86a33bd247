package bench

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Mode is one variant of the benchmark.
type Mode string

// The variants. Table I compares Seq, Goroutines and OMPC on one node;
// Figs. 4–6 compare Complete, Incremental and the message-passing baselines
// on several nodes.
const (
	Seq         Mode = "seq"           // examples/matmul -seq: one core, no region
	Goroutines  Mode = "goroutines"    // one node, every core, goroutines (Table I's OpenMP column)
	Complete    Mode = "complete"      // CAPE, cape run --monitor complete (the paper's complete checkpoints)
	Incremental Mode = "incremental"   // CAPE, cape run with the default monitor (incremental checkpoints)
	MPIGo       Mode = "mpi-go"        // hand-written Go message passing, gather + broadcast of C
	MPIGoGather Mode = "mpi-go-gather" // the same, gather of C on rank 0 only
	MPIC        Mode = "mpi-c"         // C with Open MPI, MPI_Allgatherv
	OMPC        Mode = "omp-c"         // C with OpenMP on one node
)

// AllModes lists every mode in the order tables and plots show them.
var AllModes = []Mode{Seq, Goroutines, OMPC, Complete, Incremental, MPIGo, MPIGoGather, MPIC}

// DefaultModes is what cape bench runs without --modes.
var DefaultModes = []Mode{Seq, Goroutines, Complete, Incremental, MPIGo, MPIC, OMPC}

// distributed reports whether m runs on several nodes.
func (m Mode) distributed() bool {
	switch m {
	case Complete, Incremental, MPIGo, MPIGoGather, MPIC, HaloGo, HaloC, MPGo:
		return true
	}
	return false
}

// ParseModes parses a comma-separated list of modes; "all" means every mode.
func ParseModes(s string) ([]Mode, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(AllModes), nil
	}
	var out []Mode
	for _, f := range strings.Split(s, ",") {
		m := Mode(strings.TrimSpace(f))
		if m == "" {
			continue
		}
		if !slices.Contains(AllModes, m) {
			return nil, fmt.Errorf("unknown mode %q (want one of %s)", m, joinModes(AllModes))
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no mode given")
	}
	return out, nil
}

func joinModes(ms []Mode) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ",")
}

// Config describes a benchmark run.
type Config struct {
	Sizes []int  // matrix sizes n (n×n)
	Nodes []int  // node counts for the distributed modes
	Modes []Mode // variants to run
	Reps  int    // repetitions of every cell
	Out   string // output directory (created)

	Root     string // module root (holds go.mod); found from the working directory when empty
	Prebuilt string // binaries from Prebuild to run instead of building: no Go toolchain, no Root
	Compress string // cape run --compress for the CAPE modes; "none" when empty
	Transfer string // cape run --transfer for the CAPE modes; "" means eager
	// MaxLost is cape run --max-lost for the CAPE modes (-1: no cap, cape
	// run's default; 0: no loss survived, so distributed homes copy
	// nothing to a buddy and auto is lazy transfer).
	MaxLost int

	Emulate   bool    // run every node in its own cgroup and network namespace
	NodeCPUs  float64 // CPU quota of an emulated node; 0 means cores / max(Nodes)
	Bandwidth string  // tc rate of an emulated node's link, e.g. "1gbit"; "" means no limit
	NoNetns   bool    // emulate CPU quotas only: nodes share the host's loopback

	ModelNodes int           // extrapolate the model to this many nodes; 0 means 32
	Timeout    time.Duration // per variant execution; 0 means 30 minutes
	Note       string        // free text recorded in machine.md (e.g. the command line)

	Progress io.Writer // progress bar (a terminal); nil for none
	Log      io.Writer // notices (skipped modes, emulation); nil for none
}

func (c *Config) fill() error {
	if len(c.Sizes) == 0 || len(c.Modes) == 0 {
		return errors.New("no sizes or no modes")
	}
	for _, n := range c.Sizes {
		if n < 1 {
			return fmt.Errorf("size %d: want ≥ 1", n)
		}
	}
	if len(c.Nodes) == 0 {
		c.Nodes = []int{1, 2}
	}
	for _, k := range c.Nodes {
		if k < 1 || k > 256 {
			return fmt.Errorf("node count %d: want 1..256", k)
		}
	}
	slices.Sort(c.Sizes)
	c.Sizes = slices.Compact(c.Sizes)
	slices.Sort(c.Nodes)
	c.Nodes = slices.Compact(c.Nodes)
	if c.Reps < 1 {
		c.Reps = 1
	}
	if c.Out == "" {
		return errors.New("no output directory")
	}
	if c.Compress == "" {
		c.Compress = "none"
	}
	if c.NodeCPUs < 0 {
		return fmt.Errorf("node CPUs %g: want > 0", c.NodeCPUs)
	}
	if c.Emulate && c.NodeCPUs == 0 {
		c.NodeCPUs = float64(runtime.NumCPU()) / float64(slices.Max(c.Nodes))
	}
	if c.ModelNodes == 0 {
		c.ModelNodes = 32
	}
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Minute
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}
