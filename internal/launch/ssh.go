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
	// NoCopy skips checking that each host has the program at the same path
	// (and copying it there when it does not).
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
// (no password prompts; ~/.ssh/config applies). The token travels on ssh's
// stdin, which then stays open as the node's lifeline: closing it, or the
// death of ssh or of this process, stops the remote node. The result is as
// for Local.
func SSH(ctx context.Context, s Spec, r Remote) error {
	if s.Nodes < 2 {
		return fmt.Errorf("launch: %d nodes over ssh: want at least 2 (the master runs here)", s.Nodes)
	}
	if len(r.Hosts) == 0 {
		return errors.New("launch: no hosts for the slaves")
	}
	if s.Grace == 0 {
		s.Grace = 2 * time.Second
	}
	if r.SSH == "" {
		r.SSH = "ssh"
	}
	if r.ConnectTimeout == 0 {
		r.ConnectTimeout = 10 * time.Second
	}
	bin, err := filepath.Abs(s.Binary)
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	s.Binary = bin
	placement := Place(r.Hosts, s.Nodes)

	// Every host must be reachable and hold the program before any node
	// starts, so that a typo in a host name is one clear error.
	copied, err := prepareHosts(ctx, s, r, placement)
	defer cleanupHosts(r, s.Binary, copied, s.Stderr)
	if err != nil {
		return err
	}

	token, job, err := NewToken()
	if err != nil {
		return err
	}
	lnFile, lnAddr, err := masterListener(net.JoinHostPort("", strconv.Itoa(r.MasterPort)))
	if err != nil {
		return err
	}
	defer lnFile.Close()
	port := lnAddr.Port

	outs := newOutputs(s)
	defer outs.flush()
	procs := make([]*proc, 0, s.Nodes)
	j := &jobState{grace: s.Grace, stderr: s.Stderr}
	defer func() { j.killAll(procs) }()

	// The master.
	cfg := s.Node
	cfg.Rank, cfg.Size, cfg.Job, cfg.ListenFD, cfg.Master = 0, s.Nodes, job, 4, ""
	tokR, err := tokenPipe(token)
	if err != nil {
		return err
	}
	defer tokR.Close()
	cmd := exec.Command(s.Binary, s.Args...)
	cmd.Env = append(append(append(os.Environ(), s.Env...), nodeenv.Environ(cfg)...), nodeenv.TokenFD+"=3")
	cmd.ExtraFiles = []*os.File{tokR, lnFile}
	cmd.Stdout, cmd.Stderr = outs.forRank(0)
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("launch: start the master (%s): %w", s.Binary, err)
	}
	start := func(p *proc) {
		procs = append(procs, p)
		go func() { p.err = p.cmd.Wait(); close(p.done) }()
	}
	start(&proc{rank: 0, cmd: cmd, done: make(chan struct{})})

	// The slaves.
	wd, _ := os.Getwd()
	for rank := 1; rank < s.Nodes; rank++ {
		host := placement[rank]
		cfg := s.Node
		cfg.Rank, cfg.Size, cfg.Job, cfg.ListenFD, cfg.Master = rank, s.Nodes, job, -1, ""
		if r.MasterAddr != "" {
			cfg.Master = net.JoinHostPort(r.MasterAddr, strconv.Itoa(port))
		}
		env := append(append([]string{}, s.Env...), nodeenv.Environ(cfg)...)
		env = append(env, nodeenv.TokenFD+"=0", nodeenv.Lifeline+"=0")
		script := remoteScript(wd, env, port, r.MasterAddr == "", s.Binary, s.Args)
		cmd := exec.Command(r.SSH, sshArgs(r, host, "exec /bin/sh -c "+shellQuote(script))...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return fmt.Errorf("launch: node %d on %s: %w", rank, host, err)
		}
		cmd.Stdout, cmd.Stderr = outs.forNode(rank, fmt.Sprintf("[node %d@%s] ", rank, host))
		cmd.SysProcAttr = sysProcAttr()
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("launch: start ssh for node %d on %s: %w", rank, host, err)
		}
		p := &proc{rank: rank, host: host, cmd: cmd, done: make(chan struct{})}
		var once sync.Once
		p.stop = func() { once.Do(func() { stdin.Close() }) }
		// The pipe is far larger than the token: this write does not block.
		if _, err := io.WriteString(stdin, fmt.Sprintf("%x\n", token)); err != nil {
			start(p)
			return fmt.Errorf("launch: send the token to node %d on %s: %w", rank, host, err)
		}
		start(p)
	}
	err = j.watch(ctx, procs)
	for _, p := range procs {
		if p.stop != nil {
			p.stop()
		}
	}
	return explainSSH(err, procs)
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
// directory if it exists, find the master's address if not given, and exec
// the program with the node's environment.
func remoteScript(wd string, env []string, port int, masterFromSSH bool, bin string, args []string) string {
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

// hostCopy records a program copied to a host into a directory that cape
// created, to be removed after the job.
type hostCopy struct {
	host string
	dir  string
}

// prepareHosts checks, concurrently, that every host answers over ssh and
// holds the program at the same path with the same content (POSIX cksum),
// copying it there otherwise. It returns the copies to remove afterwards.
func prepareHosts(ctx context.Context, s Spec, r Remote, placement []string) ([]hostCopy, error) {
	var hosts []string
	seen := map[string]bool{}
	for _, h := range placement[1:] {
		if !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	var sum string
	if !r.NoCopy {
		data, err := os.ReadFile(s.Binary)
		if err != nil {
			return nil, fmt.Errorf("launch: read the program: %w", err)
		}
		sum = fmt.Sprintf("%d %d", posixCksum(data), len(data))
	}
	var (
		mu     sync.Mutex
		copies []hostCopy
		errs   = make([]error, len(hosts))
		wg     sync.WaitGroup
	)
	for i, h := range hosts {
		wg.Go(func() {
			c, err := prepareHost(ctx, r, h, s.Binary, sum)
			errs[i] = err
			if c != nil {
				mu.Lock()
				copies = append(copies, *c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return copies, errors.Join(errs...)
}

func prepareHost(ctx context.Context, r Remote, host, bin, sum string) (*hostCopy, error) {
	dir := filepath.Dir(bin)
	check := "echo cape-ok"
	if sum != "" {
		check = fmt.Sprintf(`p=%s; if [ -x "$p" ] && [ "$(cksum <"$p")" = %s ]; then echo cape-have; `+
			`elif [ -d %s ]; then echo cape-need; else echo cape-need-dir; fi`,
			shellQuote(bin), shellQuote(sum), shellQuote(dir))
	}
	out, err := runSSH(ctx, r, host, check, nil)
	if err != nil {
		return nil, err
	}
	switch strings.TrimSpace(out) {
	case "cape-ok", "cape-have":
		return nil, nil
	case "cape-need", "cape-need-dir":
	default:
		return nil, fmt.Errorf("launch: host %s: unexpected answer to the program check: %q", host, out)
	}
	f, err := os.Open(bin)
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	defer f.Close()
	var c *hostCopy
	if strings.TrimSpace(out) == "cape-need-dir" {
		c = &hostCopy{host: host, dir: dir}
	}
	tmp := bin + ".cape-tmp"
	cp := fmt.Sprintf(`mkdir -p %s && cat >%s && chmod 755 %s && mv -f %s %s`,
		shellQuote(dir), shellQuote(tmp), shellQuote(tmp), shellQuote(tmp), shellQuote(bin))
	if _, err := runSSH(ctx, r, host, cp, f); err != nil {
		return c, fmt.Errorf("launch: copy %s to %s: %w", bin, host, err)
	}
	return c, nil
}

// cleanupHosts removes the programs that were copied into directories cape
// created on the hosts.
func cleanupHosts(r Remote, bin string, copies []hostCopy, stderr io.Writer) {
	if len(copies) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range copies {
		wg.Go(func() {
			rm := fmt.Sprintf("rm -f %s; rmdir %s 2>/dev/null; true", shellQuote(bin), shellQuote(c.dir))
			if _, err := runSSH(ctx, r, c.host, rm, nil); err != nil && stderr != nil {
				fmt.Fprintf(stderr, "cape: remove the copied program from %s: %v\n", c.host, err)
			}
		})
	}
	wg.Wait()
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
		return "", fmt.Errorf("launch: ssh to %s failed: %s", host, msg)
	}
	return "", fmt.Errorf("launch: on %s: %w: %s", host, err, msg)
}

// posixCksum is the checksum of POSIX cksum(1): CRC-32 with polynomial
// 0x04C11DB7, most significant bit first, over the data followed by its
// length in as few bytes as possible (least significant first), inverted.
func posixCksum(data []byte) uint32 {
	var crc uint32
	update := func(b byte) {
		crc ^= uint32(b) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04C11DB7
			} else {
				crc <<= 1
			}
		}
	}
	var table [256]uint32
	for i := range table {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		table[i] = c
	}
	for _, b := range data {
		crc = crc<<8 ^ table[byte(crc>>24)^b]
	}
	for n := len(data); n > 0; n >>= 8 {
		update(byte(n))
	}
	return ^crc
}
