package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/cape-go/cape/internal/launch"
)

// clusterHelp is appended to cape run's help.
const clusterHelp = `
On a cluster over ssh, the master runs here and the slaves start through the
system OpenSSH client (BatchMode: keys or an agent, never a password prompt;
~/.ssh/config applies, ProxyJump included). The program is copied to a new
private directory on each host (mode 0700, checked by SHA-256 before it runs;
a host needs sha256sum, shasum or openssl) and removed after the job. Without
-n, there is one slave per slot.

	cape run --hostfile hosts ./examples/matmul -- -n 2048
	cape run --hosts node1,node2:2 -n 4 ./examples/matmul

A hostfile lists one host per line, Open MPI style ("node1 slots=4") or MPICH
style ("node1:4"); "#" starts a comment. Slaves fill the first host's slots,
then the next host's, and start over when every slot is taken. The slaves
dial the master at the address their sshd sees this machine at; through a jump
host or NAT give --master-addr. Every connection to the master (the job's, the
lazy page server's, the input stream's, joining nodes') comes to one port:
give --master-port to open just that one in a firewall.

Under srun or mpirun, run the built program directly instead: see README.

`

type clusterFlags struct {
	hostfile, hosts string
	masterAddr      string
	masterPort      int
	noCopy          bool
	ssh, sshConfig  string
	sshOptions      []string
	sshTimeout      time.Duration
}

func addClusterFlags(fs *pflag.FlagSet, c *clusterFlags) {
	fs.StringVar(&c.hostfile, "hostfile", "", "run the slaves over ssh on the hosts listed in `FILE` (lines \"host slots=N\" or \"host:N\")")
	fs.StringVar(&c.hosts, "hosts", "", "run the slaves over ssh on `HOSTS`, comma-separated, each optionally host:N for N slots")
	fs.StringVar(&c.masterAddr, "master-addr", "", "address the slaves dial to reach this machine (default: as their sshd sees it)")
	fs.IntVar(&c.masterPort, "master-port", 0, "TCP port the master listens on, on every interface (default: any free port)")
	fs.BoolVar(&c.noCopy, "no-copy", false, "do not copy the program to the hosts; it must exist there at the same path, and is run there unchecked")
	fs.StringVar(&c.ssh, "ssh", "ssh", "the ssh client to run")
	fs.StringVar(&c.sshConfig, "ssh-config", "", "ssh configuration file to use instead of ~/.ssh/config (ssh -F)")
	fs.StringArrayVar(&c.sshOptions, "ssh-option", nil, "extra ssh option `KEY=VALUE` (ssh -o), repeatable")
	fs.DurationVar(&c.sshTimeout, "ssh-timeout", 10*time.Second, "how long ssh may take to connect to a host")
}

func (c *clusterFlags) active() bool { return c.hostfile != "" || c.hosts != "" }

// clusterOnly names a flag of fs, given, that only a job over ssh uses
// (addClusterFlags' but the host lists themselves), or returns "".
func clusterOnly(fs *pflag.FlagSet) string {
	own := pflag.NewFlagSet("cluster", pflag.ContinueOnError)
	addClusterFlags(own, &clusterFlags{})
	name := ""
	own.VisitAll(func(f *pflag.Flag) {
		if name == "" && f.Name != "hostfile" && f.Name != "hosts" && fs.Changed(f.Name) {
			name = f.Name
		}
	})
	return name
}

// remote turns the flags into a launch.Remote.
func (c *clusterFlags) remote() (launch.Remote, error) {
	r := launch.Remote{MasterAddr: c.masterAddr, MasterPort: c.masterPort, NoCopy: c.noCopy,
		SSH: c.ssh, ConnectTimeout: c.sshTimeout}
	var err error
	switch {
	case c.hostfile != "" && c.hosts != "":
		return r, usagef("run: give --hostfile or --hosts, not both")
	case c.hostfile != "":
		f, err := os.Open(c.hostfile)
		if err != nil {
			return r, usagef("run: --hostfile: %v", err)
		}
		defer f.Close()
		if r.Hosts, err = launch.ParseHostfile(f, c.hostfile); err != nil {
			return r, usagef("run: %v", err)
		}
	default:
		if r.Hosts, err = launch.ParseHostList(c.hosts); err != nil {
			return r, usagef("run: %v", err)
		}
	}
	if c.masterPort < 0 || c.masterPort > 65535 {
		return r, usagef("run: --master-port %d: want 0..65535", c.masterPort)
	}
	if c.sshConfig != "" {
		r.SSHArgs = append(r.SSHArgs, "-F", c.sshConfig)
	}
	for _, o := range c.sshOptions {
		r.SSHArgs = append(r.SSHArgs, "-o", o)
	}
	return r, nil
}

// runCluster runs spec over ssh. Without an explicit -n the job has one node
// per slot plus the master.
func runCluster(ctx context.Context, spec launch.Spec, r launch.Remote, nodesGiven bool) error {
	if !nodesGiven {
		spec.Nodes = 1 + launch.TotalSlots(r.Hosts)
	}
	if spec.Nodes < 2 {
		return usagef("run: -n %d with hosts: need at least 2 nodes (the master runs here, slaves on the hosts)", spec.Nodes)
	}
	if err := launch.CheckNodes(spec.Nodes); err != nil {
		return usagef("run: %v", err)
	}
	if err := launch.SSH(ctx, spec, r); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}
