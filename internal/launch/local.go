package launch

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// Spec describes a job to launch.
type Spec struct {
	Binary string         // the node program
	Args   []string       // its arguments
	Nodes  int            // number of nodes, ≥ 1
	Node   nodeenv.Config // per-job settings passed to every node (Monitor, Compress, Stats, Verify, Timeout)

	Stdout, Stderr io.Writer     // the job's output; the master's stdout goes to Stdout
	SlaveStdout    bool          // also show the slaves' stdout, prefixed
	Grace          time.Duration // between SIGTERM and SIGKILL; 0 means 2s
	Env            []string      // extra environment for every node
}

// ExitError reports a job that ended unsuccessfully; Code is the exit status
// cape run should end with.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

type proc struct {
	rank int
	host string // remote host, "" for a local node
	cmd  *exec.Cmd
	done chan struct{}
	err  error  // from Wait
	stop func() // if set, called before the node is signalled (e.g. closes ssh's stdin)
}

// NewToken returns a fresh random job token and job id.
func NewToken() (token []byte, job uint64, err error) {
	token = make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return nil, 0, fmt.Errorf("generate token: %w", err)
	}
	var j [8]byte
	if _, err := rand.Read(j[:]); err != nil {
		return nil, 0, fmt.Errorf("generate job id: %w", err)
	}
	return token, binary.LittleEndian.Uint64(j[:]), nil
}

// Local runs the job as Nodes processes on this machine and returns when
// every node has ended. It returns nil when the master exited with status 0
// and no node failed, an *ExitError otherwise. Cancelling ctx stops every
// node.
func Local(ctx context.Context, s Spec) error {
	if err := CheckNodes(s.Nodes); err != nil {
		return err
	}
	if s.Grace == 0 {
		s.Grace = 2 * time.Second
	}
	token, job, err := NewToken()
	if err != nil {
		return err
	}
	lnFile, lnAddr, err := masterListener("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer lnFile.Close()

	outs := newOutputs(s)
	defer outs.flush()
	procs := make([]*proc, 0, s.Nodes)
	j := &jobState{grace: s.Grace, stderr: s.Stderr}
	defer func() { j.killAll(procs) }()
	for rank := 0; rank < s.Nodes; rank++ {
		cfg := s.Node
		cfg.Rank, cfg.Size, cfg.Job, cfg.ListenFD = rank, s.Nodes, job, -1
		extra := []*os.File{}
		if s.Nodes > 1 {
			cfg.Master = lnAddr.String()
			tokR, err := tokenPipe(token)
			if err != nil {
				return err
			}
			defer tokR.Close()
			extra = append(extra, tokR) // fd 3
			if rank == 0 {
				cfg.Master = ""
				cfg.ListenFD = 4
				extra = append(extra, lnFile) // fd 4
			}
		}
		cmd := exec.Command(s.Binary, s.Args...)
		cmd.Env = append(append(os.Environ(), s.Env...), nodeenv.Environ(cfg)...)
		if s.Nodes > 1 {
			cmd.Env = append(cmd.Env, nodeenv.TokenFD+"=3")
		}
		cmd.ExtraFiles = extra
		cmd.Stdin = nil
		cmd.Stdout, cmd.Stderr = outs.forRank(rank)
		cmd.SysProcAttr = sysProcAttr()
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("launch: start node %d (%s): %w", rank, s.Binary, err)
		}
		p := &proc{rank: rank, cmd: cmd, done: make(chan struct{})}
		procs = append(procs, p)
		go func() { p.err = cmd.Wait(); close(p.done) }()
	}
	return j.watch(ctx, procs)
}

func tokenPipe(token []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("launch: token pipe: %w", err)
	}
	_, err = w.WriteString(hex.EncodeToString(token) + "\n")
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("launch: write token: %w", err)
	}
	return r, nil
}

type jobState struct {
	grace  time.Duration
	stderr io.Writer
	once   sync.Once

	mu sync.Mutex
	// mu protects the following field.
	stopping bool // terminate was called: later deaths are its doing
}

// status describes how a node ended and whether that is a failure.
func status(p *proc) (desc string, code int, failed bool) {
	if p.err == nil {
		return "exited with status 0", 0, false
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal()), 128 + int(ws.Signal()), true
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode()), ee.ExitCode(), true
	}
	return p.err.Error(), 1, true
}

func nodeName(p *proc) string {
	if p.host != "" {
		return fmt.Sprintf("node %d on %s (ssh pid %d)", p.rank, p.host, p.cmd.Process.Pid)
	}
	if p.rank == 0 {
		return fmt.Sprintf("master (node 0, pid %d)", p.cmd.Process.Pid)
	}
	return fmt.Sprintf("node %d (pid %d)", p.rank, p.cmd.Process.Pid)
}

// settle is how long watch waits after a first failure for other nodes to
// end, so that it blames the node that failed first (a killed slave) rather
// than the nodes that failed because of it (the master losing it).
const settle = 300 * time.Millisecond

// watch waits for the job to end and decides its outcome.
func (j *jobState) watch(ctx context.Context, procs []*proc) error {
	endc := make(chan *proc, len(procs))
	for _, p := range procs {
		go func() { <-p.done; endc <- p }()
	}
	remaining := len(procs)
	var (
		result   error
		failures []*proc          // in the order their ends were seen
		settled  <-chan time.Time // a failure was seen: decide, then stop the job
		deadline <-chan time.Time // the master ended: the slaves have this long
	)
	decide := func() {
		if result == nil && len(failures) > 0 {
			result = blame(failures, procs)
		}
	}
	for remaining > 0 {
		select {
		case p := <-endc:
			remaining--
			_, _, failed := status(p)
			if failed && !j.terminating() {
				failures = append(failures, p)
				if settled == nil && result == nil {
					settled = time.After(settle)
				}
			}
			if p.rank == 0 {
				if remaining > 0 && !failed {
					// Slaves end by themselves after the master's last
					// message; do not wait for a stuck one forever.
					deadline = time.After(j.grace)
				}
			}
		case <-settled:
			settled = nil
			decide()
			j.terminate(procs)
		case <-deadline:
			deadline = nil
			j.terminate(procs)
		case <-ctx.Done():
			decide()
			if result == nil {
				result = &ExitError{Code: 130, Msg: "interrupted; stopping every node"}
			}
			ctx = context.Background()
			j.terminate(procs)
		}
	}
	decide()
	return result
}

// blame picks the node whose failure stopped the job: a node that is still
// there but stopped (hung, state T) if any, else one killed by a signal
// (nobody else sends signals to nodes before the job is being stopped),
// otherwise the first to end.
func blame(failures, procs []*proc) error {
	for _, p := range procs {
		select {
		case <-p.done:
			continue
		default:
		}
		if stopped(p) {
			msg := fmt.Sprintf("%s is stopped and does not answer (hung)", nodeName(p))
			if p.rank != 0 {
				msg += "; the job was stopped"
			}
			return &ExitError{Code: 1, Msg: msg}
		}
	}
	culprit := failures[0]
	for _, p := range failures {
		if desc, _, _ := status(p); strings.HasPrefix(desc, "was killed") {
			culprit = p
			break
		}
	}
	desc, code, _ := status(culprit)
	msg := fmt.Sprintf("%s %s", nodeName(culprit), desc)
	if culprit.rank != 0 {
		msg += "; the job was stopped"
	}
	return &ExitError{Code: max(code, 1), Msg: msg}
}

func (j *jobState) terminating() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stopping
}

// terminate sends SIGTERM to every running node's process group and SIGKILL
// after the grace period.
func (j *jobState) terminate(procs []*proc) {
	j.once.Do(func() {
		j.mu.Lock()
		j.stopping = true
		j.mu.Unlock()
		for _, p := range procs {
			if p.stop != nil {
				p.stop()
			}
			signalGroup(p, syscall.SIGTERM)
		}
		go func() {
			time.Sleep(j.grace)
			j.killAll(procs)
		}()
	})
}

func (j *jobState) killAll(procs []*proc) {
	for _, p := range procs {
		select {
		case <-p.done:
		default:
			signalGroup(p, syscall.SIGKILL)
		}
	}
}

// masterListener binds the master's listening socket in the launcher, so
// that its address is known before any node starts, and returns it as a
// file to hand to rank 0, with its address.
func masterListener(addr string) (*os.File, *net.TCPAddr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("launch: listen for the master on %s: %w", addr, err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return nil, nil, fmt.Errorf("launch: listener file: %w", err)
	}
	return f, ln.Addr().(*net.TCPAddr), nil
}
