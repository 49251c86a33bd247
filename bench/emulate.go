package bench

import "errors"

// ErrNotSupported is returned by the emulated cluster where it cannot work:
// not Linux, not root, or no cgroup CPU controller.
var ErrNotSupported = errors.New("emulated cluster not supported here")

// wrap returns the argv prefix that runs a program as node rank of the
// emulated cluster (rank < 0: the wrapper takes the rank from CAPE_RANK or
// OMPI_COMM_WORLD_RANK), inside the node's network namespace when netns is
// true. It returns nil when c is nil or emulated is false.
func (c *cluster) wrap(emulated bool, rank int, netns bool) []string {
	if c == nil || !emulated {
		return nil
	}
	r, net := "env", "nonet"
	if rank >= 0 {
		r = itoa(rank)
	}
	if netns && c.netns {
		net = "net"
	}
	return []string{"/bin/sh", c.script, r, net}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	neg := i < 0
	if neg {
		i = -i
	}
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// cluster is an emulated cluster: per-node cgroups with a CPU quota and,
// when the ip command works, per-node network namespaces joined by veth
// links to a bridge, each link limited by tc to the configured rate. It is
// not safe for concurrent use.
type cluster struct {
	nodes     int
	cgroupDir string // holds node0, node1, …
	script    string // the wrapper that moves a process into its node
	netns     bool   // nodes have their own network namespace
	subnet    string // e.g. "10.231.7." — node r is subnet + (r+1)
	prefix    string // names of namespaces, veths and the bridge
	nextPort  int
	undo      []func() error // teardown steps, run in reverse
	describe  string         // for machine.md
}

func (c *cluster) masterIP() string { return c.subnet + "1" }

// port returns a fresh TCP port for the next job's master.
func (c *cluster) port() int {
	c.nextPort++
	if c.nextPort > 60000 {
		c.nextPort = 41000
	}
	return c.nextPort
}

// Close tears the cluster down: namespaces, links, cgroups.
func (c *cluster) Close() error {
	var errs []error
	for i := len(c.undo) - 1; i >= 0; i-- {
		errs = append(errs, c.undo[i]())
	}
	c.undo = nil
	return errors.Join(errs...)
}
