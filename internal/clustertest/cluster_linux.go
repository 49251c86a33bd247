package clustertest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// New makes a cluster of o.Hosts hosts for t and removes it in t.Cleanup.
func New(t testing.TB, o Options) *Cluster {
	t.Helper()
	NeedRoot(t, "the multi-host harness")
	sshd := NeedCommand(t, "sshd", "openssh-server")
	NeedCommand(t, "ssh", "openssh-client")
	NeedCommand(t, "ssh-keygen", "openssh-client")
	// Outside /tmp: the hosts' sshd must read it even though Private may
	// be below TMPDIR.
	dir, err := os.MkdirTemp("/run", "cape-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// Traversable by other users (tests that play one need to reach
	// Private); the keys in it stay mode 0600.
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Dir: dir}
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "id"))
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "hostkey"))
	pub, err := os.ReadFile(filepath.Join(dir, "id.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation directory
		t.Fatal(err)
	}

	netns := !o.Loopback
	if netns {
		if err := probeNetns(); err != nil {
			t.Logf("network namespaces unavailable (%v): sshd on loopback ports instead", err)
			netns = false
		}
	}
	var ports []int
	if netns {
		c.Private = filepath.Join(dir, "private")
		c.TmpDir = filepath.Join(c.Private, "tmp")
		if err := os.MkdirAll(c.Private, 0o755); err != nil {
			t.Fatal(err)
		}
		c.makeNetns(t, o)
	} else {
		for range o.Hosts {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
			ln.Close()
			c.Addrs = append(c.Addrs, "127.0.0.1")
		}
	}

	var cfg bytes.Buffer
	for i := range o.Hosts {
		host := fmt.Sprintf("h%d", i+1)
		c.Hosts = append(c.Hosts, host)
		port := 22
		if !netns {
			port = ports[i]
		}
		c.startSSHD(t, sshd, i, port)
		fmt.Fprintf(&cfg, "Host %s\n  HostName %s\n  Port %d\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n"+
			"  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n\n",
			host, c.Addrs[i], port, filepath.Join(dir, "id"), filepath.Join(dir, "known_hosts"))
	}
	hostPub, err := os.ReadFile(filepath.Join(dir, "hostkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	var known bytes.Buffer
	for i, a := range c.Addrs {
		if netns {
			fmt.Fprintf(&known, "%s %s", a, hostPub)
		} else {
			fmt.Fprintf(&known, "[%s]:%d %s", a, ports[i], hostPub)
		}
	}
	c.SSHConfig = filepath.Join(dir, "ssh_config")
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), known.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.SSHConfig, cfg.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitSSH(t)
	return c
}

// probeNetns checks, once per process, that a namespace can be created
// (root alone is not enough in some containers). Tests that run in
// parallel share the answer: probes of the same name at once would fail
// each other.
var probeNetns = sync.OnceValue(func() error {
	name := fmt.Sprintf("cape-probe-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns add: %v: %s", err, bytes.TrimSpace(out))
	}
	return exec.Command("ip", "netns", "del", name).Run()
})

// clusters counts the clusters made by this process.
var clusters atomic.Int64

// makeNetns creates a bridge in this namespace and one namespace per host
// attached to it, with addresses in a /24 chosen from the PID.
func (c *Cluster) makeNetns(t testing.TB, o Options) {
	// Each cluster of the process gets its own names: the links of the
	// previous one may outlive its cleanup for a moment.
	id := (os.Getpid() + 7919*int(clusters.Add(1))) % 100000
	subnet := fmt.Sprintf("10.%d.%d", 100+id%100, (id/100)%250+1)
	br := fmt.Sprintf("cbr%d", id)
	run(t, "ip", "link", "add", br, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", br).Run() })
	run(t, "ip", "addr", "add", subnet+".1/24", "dev", br)
	run(t, "ip", "link", "set", br, "up")
	for i := range o.Hosts {
		ns := fmt.Sprintf("cape-%d-h%d", id, i+1)
		veth := fmt.Sprintf("cv%dh%d", id, i+1)
		addr := fmt.Sprintf("%s.%d", subnet, 10+i)
		run(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		c.Netns = append(c.Netns, ns)
		c.Addrs = append(c.Addrs, addr)
		run(t, "ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
		run(t, "ip", "link", "set", veth, "master", br, "up")
		run(t, "ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
		run(t, "ip", "netns", "exec", ns, "ip", "addr", "add", addr+"/24", "dev", "eth0")
		run(t, "ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up")
		if o.Rate != "" {
			out, err := exec.Command("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "root",
				"tbf", "rate", o.Rate, "burst", "256kb", "latency", "50ms").CombinedOutput()
			if err != nil {
				t.Logf("tc: %s not applied to %s: %v: %s", o.Rate, ns, err, bytes.TrimSpace(out))
			}
		}
	}
}

// startSSHD starts host i's sshd, in its namespace and with Private
// hidden under an empty tmpfs holding only TmpDir (its sessions' TMPDIR), and
// kills it by PID in t.Cleanup.
func (c *Cluster) startSSHD(t testing.TB, sshd string, i, port int) {
	dir := c.Dir
	conf := filepath.Join(dir, fmt.Sprintf("sshd_config.h%d", i+1))
	text := fmt.Sprintf(`ListenAddress %s:%d
HostKey %s
AuthorizedKeysFile %s
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
MaxStartups 200
MaxSessions 200
LogLevel INFO
`, c.Addrs[i], port, filepath.Join(dir, "hostkey"), filepath.Join(dir, "authorized_keys"))
	if c.TmpDir != "" {
		text += "SetEnv TMPDIR=" + c.TmpDir + "\n"
	}
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(dir, fmt.Sprintf("sshd.h%d.log", i+1))
	var cmd *exec.Cmd
	if len(c.Netns) > 0 {
		script := fmt.Sprintf("mount -t tmpfs -o mode=1777 cape-private %s && mkdir -m 1777 %s && exec %s -D -f %s -E %s",
			c.Private, c.TmpDir, sshd, conf, logf)
		cmd = exec.Command("ip", "netns", "exec", c.Netns[i], "unshare", "--mount", "--propagation", "private", "sh", "-c", script)
	} else {
		cmd = exec.Command(sshd, "-D", "-f", conf, "-E", logf)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sshd for h%d: %v", i+1, err)
	}
	pid := cmd.Process.Pid
	c.SSHDPids = append(c.SSHDPids, pid)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = syscall.Kill(pid, syscall.SIGKILL)
			<-done
		}
	})
	select {
	case <-done:
		log, _ := os.ReadFile(logf)
		t.Fatalf("sshd for h%d exited at once: %s%s", i+1, stderr.String(), log)
	case <-time.After(50 * time.Millisecond):
	}
}

// waitSSH waits (bounded) until every host runs a command over ssh.
func (c *Cluster) waitSSH(t testing.TB) {
	deadline := time.Now().Add(15 * time.Second)
	for i, h := range c.Hosts {
		for attempt := 0; ; attempt++ {
			out, err := exec.Command("ssh", "-F", c.SSHConfig, "-o", "BatchMode=yes", "-o", "ConnectTimeout=3", h, "echo ok").CombinedOutput()
			if err == nil && strings.TrimSpace(string(out)) == "ok" {
				break
			}
			if time.Now().After(deadline) {
				log, _ := os.ReadFile(filepath.Join(c.Dir, "sshd.h"+strconv.Itoa(i+1)+".log"))
				t.Fatalf("ssh %s (%s): %v: %s\nsshd log:\n%s", h, c.Addrs[i], err, out, log)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// Exec runs a command on host i as its sshd would see it: in its network
// namespace (in loopback mode, here).
func (c *Cluster) Exec(i int, name string, args ...string) *exec.Cmd {
	if len(c.Netns) == 0 {
		return exec.Command(name, args...)
	}
	return exec.Command("ip", append([]string{"netns", "exec", c.Netns[i], name}, args...)...)
}
