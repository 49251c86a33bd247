package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// newCluster sets up an emulated cluster of nodes nodes for cfg: a cgroup per
// node with cfg.NodeCPUs CPUs (cgroup v1 cpu controller, or v2 cpu.max) and,
// when the ip command can create namespaces, a network namespace per node
// with a veth link to a bridge, shaped by tc tbf to cfg.Bandwidth in both
// directions. It fails with advice when not root or when no cgroup CPU
// controller is found.
func newCluster(ctx context.Context, cfg *Config, nodes int) (_ *cluster, err error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("needs root (cgroups, network namespaces): %w", ErrNotSupported)
	}
	var id [2]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("random id: %w", err)
	}
	c := &cluster{nodes: nodes, prefix: "cb" + hex.EncodeToString(id[:]), nextPort: 41000 + int(id[0])*64}
	c.subnet = fmt.Sprintf("10.231.%d.", id[1])
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Close())
		}
	}()
	procs, err := c.setupCgroups(cfg.NodeCPUs)
	if err != nil {
		return nil, err
	}
	var notes []string
	if cfg.NoNetns {
		if cfg.Bandwidth != "" {
			return nil, errors.New("a bandwidth limit needs network namespaces")
		}
		notes = append(notes, "CPU quotas only, by request")
	} else if err := c.setupNet(ctx, cfg.Bandwidth); err != nil {
		if cfg.Bandwidth != "" {
			return nil, fmt.Errorf("network namespaces (needed for --bandwidth): %w", err)
		}
		fmt.Fprintf(cfg.Log, "bench: notice: no network namespaces (%v); emulated nodes share the host's loopback\n", err)
		notes = append(notes, "no network namespaces: loopback shared")
	}
	dir, err := os.MkdirTemp("", "cape-bench-cluster-")
	if err != nil {
		return nil, fmt.Errorf("wrapper dir: %w", err)
	}
	c.undo = append(c.undo, func() error { return os.RemoveAll(dir) })
	c.script = filepath.Join(dir, "node.sh")
	if err := os.WriteFile(c.script, []byte(c.wrapperScript(procs)), 0o755); err != nil {
		return nil, fmt.Errorf("wrapper: %w", err)
	}
	bw := cfg.Bandwidth
	if bw == "" || !c.netns {
		bw = "unlimited (loopback speed)"
	}
	c.describe = fmt.Sprintf("%d emulated nodes: cgroup %s, %.3g CPU each; network: %s; link rate %s; %s",
		nodes, c.cgroupDir, cfg.NodeCPUs, map[bool]string{true: "one namespace per node, veth to a bridge", false: "host loopback"}[c.netns], bw, strings.Join(notes, "; "))
	fmt.Fprintf(cfg.Log, "bench: %s\n", c.describe)
	return c, nil
}

// wrapperScript is the argv prefix of a node: it moves itself into the
// node's cgroup, then, for namespaced nodes, points CAPE at the master's
// address on the bridge (the master listens there itself rather than on the
// launcher's loopback socket) and executes the program in the namespace.
func (c *cluster) wrapperScript(procsFile string) string {
	return fmt.Sprintf(`#!/bin/sh
# cape bench emulated node: %[1]s RANK|env net|nonet PROGRAM [ARGS...]
r=$1; n=$2; shift 2
if [ "$r" = env ]; then r=${CAPE_RANK:-${OMPI_COMM_WORLD_RANK:-0}}; fi
echo $$ > %[2]s/node$r/%[3]s || { echo "node $r: cannot join cgroup" >&2; exit 97; }
if [ "$n" = net ]; then
	if [ -n "$CAPE_SIZE" ]; then
		export CAPE_MASTER=%[4]s:$BENCH_PORT
		unset CAPE_LISTEN_FD
	fi
	exec ip netns exec %[5]sn$r "$@"
fi
exec "$@"
`, c.script, c.cgroupDir, procsFile, c.masterIP(), c.prefix)
}

// setupCgroups creates one cgroup per node with a CPU quota and returns the
// name of the file that takes a pid.
func (c *cluster) setupCgroups(cpus float64) (procsFile string, err error) {
	if cpus <= 0 {
		return "", errors.New("node CPU quota must be positive")
	}
	const period = 100000 // µs
	quota := int(math.Round(cpus * period))
	v1 := "/sys/fs/cgroup/cpu"
	if _, err := os.Stat(filepath.Join(v1, "cpu.cfs_quota_us")); err == nil {
		c.cgroupDir = filepath.Join(v1, c.prefix)
		procsFile = "cgroup.procs"
		if err := mkCgroup(c, c.cgroupDir); err != nil {
			return "", err
		}
		for r := 0; r < c.nodes; r++ {
			d := filepath.Join(c.cgroupDir, "node"+strconv.Itoa(r))
			if err := mkCgroup(c, d); err != nil {
				return "", err
			}
			if err := write(filepath.Join(d, "cpu.cfs_period_us"), strconv.Itoa(period)); err != nil {
				return "", err
			}
			if err := write(filepath.Join(d, "cpu.cfs_quota_us"), strconv.Itoa(quota)); err != nil {
				return "", err
			}
		}
		return procsFile, nil
	}
	// cgroup v2: the unified hierarchy at /sys/fs/cgroup (or .../unified
	// on hybrid systems) with the cpu controller available.
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		ctrl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil || !hasWord(string(ctrl), "cpu") {
			continue
		}
		c.cgroupDir = filepath.Join(root, c.prefix)
		if err := write(filepath.Join(root, "cgroup.subtree_control"), "+cpu"); err != nil {
			return "", err
		}
		if err := mkCgroup(c, c.cgroupDir); err != nil {
			return "", err
		}
		if err := write(filepath.Join(c.cgroupDir, "cgroup.subtree_control"), "+cpu"); err != nil {
			return "", err
		}
		for r := 0; r < c.nodes; r++ {
			d := filepath.Join(c.cgroupDir, "node"+strconv.Itoa(r))
			if err := mkCgroup(c, d); err != nil {
				return "", err
			}
			if err := write(filepath.Join(d, "cpu.max"), fmt.Sprintf("%d %d", quota, period)); err != nil {
				return "", err
			}
		}
		return "cgroup.procs", nil
	}
	return "", fmt.Errorf("no cgroup cpu controller (neither /sys/fs/cgroup/cpu of cgroup v1 nor cpu in a v2 cgroup.controllers): %w", ErrNotSupported)
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func mkCgroup(c *cluster, dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create cgroup: %w", err)
	}
	c.undo = append(c.undo, func() error {
		// A cgroup can be removed once its processes have exited, which
		// the kernel notices a moment after they are reaped.
		var err error
		for i := 0; i < 50; i++ {
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				return nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		return fmt.Errorf("remove cgroup: %w", err)
	})
	return nil
}

func write(file, value string) error {
	if err := os.WriteFile(file, []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %q: %w", value, err)
	}
	return nil
}

// setupNet creates the bridge, the namespaces and the shaped veth links.
func (c *cluster) setupNet(ctx context.Context, rate string) error {
	ip := func(args ...string) error { return run(ctx, "ip", args...) }
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("ip (iproute2) not installed: %w", err)
	}
	br := c.prefix + "br"
	if err := ip("link", "add", br, "type", "bridge"); err != nil {
		return err
	}
	c.undo = append(c.undo, func() error { return ip("link", "del", br) })
	if err := ip("link", "set", br, "up"); err != nil {
		return err
	}
	var burst string
	if rate != "" {
		bps, err := parseRate(rate)
		if err != nil {
			return err
		}
		// 10 ms worth of data, at least 64 KiB: enough for tbf at any HZ.
		burst = strconv.FormatInt(max(64<<10, int64(bps/8/100)), 10)
	}
	for r := 0; r < c.nodes; r++ {
		ns := c.prefix + "n" + strconv.Itoa(r)
		host := c.prefix + "h" + strconv.Itoa(r)
		if err := ip("netns", "add", ns); err != nil {
			return err
		}
		c.undo = append(c.undo, func() error { return ip("netns", "del", ns) })
		if err := ip("link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", ns); err != nil {
			return err
		}
		steps := [][]string{
			{"link", "set", host, "master", br},
			{"link", "set", host, "up"},
			{"-n", ns, "addr", "add", c.subnet + strconv.Itoa(r+1) + "/24", "dev", "eth0"},
			{"-n", ns, "link", "set", "eth0", "up"},
			{"-n", ns, "link", "set", "lo", "up"},
		}
		for _, s := range steps {
			if err := ip(s...); err != nil {
				return err
			}
		}
		if rate != "" {
			tbf := []string{"qdisc", "add", "dev", "eth0", "root", "tbf", "rate", rate, "burst", burst, "latency", "50ms"}
			if err := run(ctx, "tc", append([]string{"-n", ns}, tbf...)...); err != nil {
				return err
			}
			tbf[3] = host
			if err := run(ctx, "tc", tbf...); err != nil {
				return err
			}
		}
	}
	c.netns = true
	return nil
}

func run(ctx context.Context, name string, args ...string) error {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// parseRate parses a tc rate such as 100mbit, 1gbit or 500kbit into bits
// per second.
func parseRate(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}}
	t := strings.ToLower(strings.TrimSpace(s))
	for _, u := range units {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 {
				break
			}
			return f * u.mult, nil
		}
	}
	return 0, fmt.Errorf("bandwidth %q: want a tc rate such as 100mbit or 1gbit", s)
}
