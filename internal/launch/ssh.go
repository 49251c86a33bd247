package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// Remote describes where and how SSH starts a job's slaves.
type Remote struct {
	// Hosts receive the slaves, placed by Place. The master runs here.
	Hosts []Host
	// MasterAddr is the host or IP address the slaves dial to reach the
	// master. Empty means the address at which each slave's sshd sees this
	// machine (the client address of $SSH_CONNECTION), right unless ssh goes
	// through a jump host or a proxy.
	MasterAddr string
	// MasterPort is the master's TCP port on every interface; 0 picks one.
	MasterPort int
	// NoCopy skips copying the program to each host: it must exist there at
	// the same path, and is run there unchecked.
	NoCopy bool
	// SSH is the ssh client; "" means "ssh" from $PATH.
	SSH string
	// SSHArgs are extra arguments for every ssh invocation, before the
	// destination (e.g. "-F", "file", "-o", "Port=2222").
	SSHArgs []string
	// ConnectTimeout bounds ssh's connection to a host; 0 means 10s.
	ConnectTimeout time.Duration
}

// SSH runs the job with the master (rank 0) on this machine and the slaves
// on r.Hosts, each started through the system OpenSSH client in batch mode
// (no password prompts; ~/.ssh/config applies). The program is copied to a
// private directory on each host first (see remotecopy.go). The token
// travels on ssh's stdin, which then stays open as the node's lifeline:
// closing it, or the death of ssh or of this process, stops the remote
// node. The result is as for Local.
func SSH(ctx context.Context, s Spec, r Remote) error {
	if s.Nodes < 2 {
		return fmt.Errorf("%d nodes over ssh: want at least 2 (the master runs here)", s.Nodes)
	}
	if len(r.Hosts) == 0 {
		return errors.New("no hosts for the slaves")
	}
	if r.SSH == "" {
		r.SSH = "ssh"
	}
	if r.ConnectTimeout == 0 {
		r.ConnectTimeout = 10 * time.Second
	}
	bin, err := filepath.Abs(s.Binary)
	if err != nil {
		return fmt.Errorf("program path: %w", err)
	}
	s.Binary = bin
	placement := Place(r.Hosts, s.Nodes)

	// Every host must be reachable and hold the program before any node
	// starts, so that a typo in a host name is one clear error.
	copies, err := prepareHosts(ctx, s, r, placement)
	defer cleanupHosts(r, copies, s.Stderr)
	if err != nil {
		return err
	}
	sup, err := newSupervisor(s)
	if err != nil {
		return err
	}
	defer sup.close()
	if err := sup.startSSH(s, r, placement, copies); err != nil {
		return err
	}
	err = sup.watch(ctx)
	for _, p := range sup.procs {
		if p.stop != nil {
			p.stop()
		}
	}
	return explainSSH(err, sup.procs)
}

// startSSH starts the master here and the slaves on their hosts.
func (j *supervisor) startSSH(s Spec, r Remote, placement []string, copies programOn) error {
	token, job, err := NewToken()
	if err != nil {
		return err
	}
	ln, err := masterListener(net.JoinHostPort("", strconv.Itoa(r.MasterPort)))
	if err != nil {
		return err
	}
	defer ln.file.Close()
	cfg := s.Node
	cfg.Size, cfg.Job, cfg.ListenFD = s.Nodes, job, -1
	if err := j.startMaster(s, cfg, token, ln.file); err != nil {
		return err
	}
	j.started() // the slaves do not get the status pipe
	if r.MasterAddr != "" {
		cfg.Master = net.JoinHostPort(r.MasterAddr, strconv.Itoa(ln.addr.Port))
	}
	wd, _ := os.Getwd()
	for rank := 1; rank < s.Nodes; rank++ {
		cfg.Rank = rank
		env := append(append([]string{}, s.Env...), nodeenv.Environ(cfg)...)
		env = append(env, nodeenv.TokenFD+"=0", nodeenv.Lifeline+"=0")
		host := placement[rank]
		path, sum := copies.path(host, s.Binary)
		script := remoteScript(wd, env, ln.addr.Port, r.MasterAddr == "", path, sum, s.Args)
		if err := j.startRemote(rank, host, r, script, token); err != nil {
			return err
		}
	}
	return nil
}

// startRemote starts node rank on host through ssh and sends it the token.
func (j *supervisor) startRemote(rank int, host string, r Remote, script string, token []byte) error {
	cmd := exec.Command(r.SSH, sshArgs(r, host, "exec /bin/sh -c "+shellQuote(script))...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("node %d on %s: %w", rank, host, err)
	}
	cmd.Stdout, cmd.Stderr = j.outs.forNode(rank, fmt.Sprintf("[node %d@%s] ", rank, host))
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ssh for node %d on %s: %w", rank, host, err)
	}
	p := &proc{rank: rank, host: host, cmd: cmd}
	var once sync.Once
	p.stop = func() { once.Do(func() { stdin.Close() }) }
	j.add(p)
	// The pipe is far larger than the token: this write does not block.
	if _, err := io.WriteString(stdin, fmt.Sprintf("%x\n", token)); err != nil {
		return fmt.Errorf("send the token to node %d on %s: %w", rank, host, err)
	}
	return nil
}

// explainSSH adds to a job's error what ssh's exit status means.
func explainSSH(err error, procs []*proc) error {
	var ee *ExitError
	if !errors.As(err, &ee) {
		return err
	}
	for _, p := range procs {
		if p.host == "" || !strings.HasPrefix(ee.Msg, nodeName(p)) {
			continue
		}
		switch _, code, _ := status(p); code {
		case 255:
			ee.Msg += fmt.Sprintf(" (status 255 is ssh's own failure: the connection to %s failed or dropped; its message is above)", p.host)
		case 126, 127:
			ee.Msg += fmt.Sprintf(" (status %d: the program could not be run on %s; with --no-copy it must exist there at the same path)", code, p.host)
		}
	}
	return err
}

// sshArgs returns the arguments of an ssh invocation running command on
// host: no terminal, no prompts, no forwarding, bounded connect time, and
// keepalives so that a vanished host is noticed.
func sshArgs(r Remote, host, command string) []string {
	args := []string{"-T", "-x",
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout=" + strconv.Itoa(max(1, int(r.ConnectTimeout/time.Second))),
		"-o", "ServerAliveInterval=5",
		"-o", "ServerAliveCountMax=3",
		"-o", "LogLevel=ERROR",
	}
	args = append(args, r.SSHArgs...)
	return append(args, "--", host, command)
}

// remoteScript is the /bin/sh script that starts a slave: go to the same
// directory if it exists, find the master's address if not given, check the
// copy of the program (when sum is set) and exec it with the node's
// environment.
func remoteScript(wd string, env []string, port int, masterFromSSH bool, bin, sum string, args []string) string {
	var b strings.Builder
	if wd != "" {
		fmt.Fprintf(&b, "cd %s 2>/dev/null || cd; ", shellQuote(wd))
	}
	if masterFromSSH {
		// $SSH_CONNECTION is "client-ip client-port server-ip server-port".
		fmt.Fprintf(&b, `set -- $SSH_CONNECTION; m=$1; case $m in *:*) m="[$m]";; esac; `+
			`[ -n "$m" ] || { echo "cape: SSH_CONNECTION is not set: give cape run --master-addr" >&2; exit 126; }; `+
			`%s=$m:%d; export %s; `, nodeenv.Master, port, nodeenv.Master)
	}
	if sum != "" {
		b.WriteString(guardScript(bin, sum))
		b.WriteString(reapScript(bin))
	}
	b.WriteString("exec env")
	for _, kv := range env {
		b.WriteString(" " + shellQuote(kv))
	}
	b.WriteString(" " + shellQuote(bin))
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runSSH runs a short shell command on host and returns its stdout; an error
// names the host and carries ssh's error output.
func runSSH(ctx context.Context, r Remote, host, script string, stdin io.Reader) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.ConnectTimeout+60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.SSH, sshArgs(r, host, "exec /bin/sh -c "+shellQuote(script))...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	cmd.SysProcAttr = sysProcAttr()
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		msg = "no error output"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 255 {
		return "", fmt.Errorf("ssh to %s failed: %s", host, msg)
	}
	return "", fmt.Errorf("on %s: %w: %s", host, err, msg)
}
