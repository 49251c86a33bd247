package clustertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
)

// NeedRoot skips t unless it runs as root.
func NeedRoot(t testing.TB, what string) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Skip(t, "%s needs root (run the tests as root, as CI does)", what)
	}
}

// NeedCommand returns the path of cmd, or skips t naming the package that
// provides it.
func NeedCommand(t testing.TB, cmd, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(cmd); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(dir, cmd)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p
		}
	}
	testenv.Skip(t, "%s not found (install %s; bash .ci/cluster-setup.sh does)", cmd, pkg)
	return ""
}

// Options shape a cluster.
type Options struct {
	// Hosts is the number of hosts, ≥ 1.
	Hosts int
	// Rate, if set, limits each host's link with tc (e.g. "1gbit"); a
	// kernel without the qdisc only logs that it is not applied.
	Rate string
	// Loopback forces the loopback fallback (no namespaces).
	Loopback bool
}

// Cluster is a set of test hosts reachable over ssh. It is not safe for
// concurrent modification; its fields are fixed after New.
type Cluster struct {
	Hosts     []string // ssh destinations "h1".."hK", defined in SSHConfig
	Addrs     []string // their IP addresses
	SSHConfig string   // ssh client configuration file (ssh -F)
	Private   string   // a directory that is empty on every host (netns mode), "" otherwise
	TmpDir    string   // Private/tmp, mode 1777: the TMPDIR of ssh sessions on every host (netns mode), "" otherwise
	Netns     []string // namespace names, empty in loopback mode
	SSHDPids  []int    // the sshd processes
	Dir       string   // the cluster's files
}

// HostfileMPI writes an Open MPI style hostfile with slots per host and
// returns its path.
func (c *Cluster) Hostfile(t testing.TB, slots int) string {
	t.Helper()
	var b strings.Builder
	for _, h := range c.Hosts {
		fmt.Fprintf(&b, "%s slots=%d\n", h, slots)
	}
	p := filepath.Join(c.Dir, "hostfile")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
