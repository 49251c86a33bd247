package launch

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// Spec describes a job to launch.
type Spec struct {
	Binary string         // the node program
	Args   []string       // its arguments
	Nodes  int            // number of nodes, ≥ 1
	Node   nodeenv.Config // per-job settings passed to every node (Monitor, Compress, Stats, Verify, Timeout)

	Stdout, Stderr io.Writer // the job's output; the master's stdout goes to Stdout
	// Stdin is the master's standard input (its runtime streams it to
	// the slaves); nil gives it /dev/null, like the slaves' own.
	Stdin       *os.File
	SlaveStdout bool          // also show the slaves' stdout, prefixed
	Grace       time.Duration // between SIGTERM and SIGKILL; 0 means 2s
	Env         []string      // extra environment for every node
}

// ExitError reports a job that ended unsuccessfully; Code is the exit status
// cape run should end with.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

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
	sup, err := newSupervisor(s)
	if err != nil {
		return err
	}
	defer sup.close()
	token, job, err := NewToken()
	if err != nil {
		return err
	}
	cfg := s.Node
	cfg.Size, cfg.Job = s.Nodes, job
	if s.Nodes == 1 {
		if err := sup.startLocal(0, s, cfg, inherited{}); err != nil {
			return err
		}
		return sup.watch(ctx)
	}
	ln, err := masterListener("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.file.Close()
	if err := sup.startMaster(s, cfg, token, ln.file); err != nil {
		return err
	}
	cfg.Master = ln.addr.String()
	for rank := 1; rank < s.Nodes; rank++ {
		cfg.Rank = rank
		var files inherited
		if err := files.token(token); err != nil {
			return err
		}
		files.add(sup.status.writer(), nodeenv.StatusFD)
		err := sup.startLocal(rank, s, cfg, files)
		files.close()
		if err != nil {
			return err
		}
	}
	sup.started()
	return sup.watch(ctx)
}

// startMaster starts rank 0 here, for a local or an ssh job: it inherits the
// token pipe, the bound listener and the status pipe.
func (j *supervisor) startMaster(s Spec, cfg nodeenv.Config, token []byte, ln *os.File) error {
	cfg.Rank, cfg.Master = 0, ""
	var files inherited
	defer files.close()
	if err := files.token(token); err != nil {
		return err
	}
	files.add(ln, nodeenv.ListenFD)
	files.add(j.status.writer(), nodeenv.StatusFD)
	return j.startLocal(0, s, cfg, files)
}

// startLocal starts the node of the given rank as a process of this machine.
func (j *supervisor) startLocal(rank int, s Spec, cfg nodeenv.Config, files inherited) error {
	cfg.Rank, cfg.ListenFD = rank, -1
	cmd := exec.Command(s.Binary, s.Args...)
	cmd.Env = append(append(append(os.Environ(), s.Env...), nodeenv.Environ(cfg)...), files.env...)
	cmd.ExtraFiles = files.files
	stdout, stderr := j.outs.forRank(rank)
	var ends []*os.File // the pipes' write ends, closed here once the node started
	for _, out := range []struct {
		w  io.Writer
		to *io.Writer
	}{{stdout, &cmd.Stdout}, {stderr, &cmd.Stderr}} {
		f, created, err := j.outs.pipe(out.w)
		if err != nil {
			for _, f := range ends {
				f.Close() // its copy ends
			}
			return err
		}
		if f != nil {
			*out.to = f
		}
		if created {
			ends = append(ends, f)
		}
	}
	if rank == 0 && s.Stdin != nil {
		cmd.Stdin = s.Stdin
	}
	cmd.SysProcAttr = sysProcAttr()
	err := cmd.Start()
	for _, f := range ends {
		f.Close()
	}
	if err != nil {
		if rank == 0 {
			return fmt.Errorf("start the master (%s): %w", s.Binary, err)
		}
		return fmt.Errorf("start node %d (%s): %w", rank, s.Binary, err)
	}
	j.add(&proc{rank: rank, cmd: cmd})
	return nil
}

// inherited lays out the files a node inherits besides stdin, stdout and
// stderr, and the variables that tell the node their descriptor numbers:
// the i-th file added is descriptor 3+i in the node (exec.Cmd.ExtraFiles).
// This is the only place that numbers them.
type inherited struct {
	files []*os.File
	env   []string
	owned []*os.File // files to close in the launcher once the node started
}

// add passes f as the descriptor named by variable (nodeenv.TokenFD,
// ListenFD, StatusFD); a nil f is skipped.
func (in *inherited) add(f *os.File, variable string) {
	if f == nil {
		return
	}
	in.env = append(in.env, variable+"="+strconv.Itoa(3+len(in.files)))
	in.files = append(in.files, f)
}

// token passes the token on a pipe holding it (hex, one line).
func (in *inherited) token(token []byte) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("token pipe: %w", err)
	}
	_, err = w.WriteString(hex.EncodeToString(token) + "\n")
	w.Close()
	if err != nil {
		r.Close()
		return fmt.Errorf("write the token pipe: %w", err)
	}
	in.owned = append(in.owned, r)
	in.add(r, nodeenv.TokenFD)
	return nil
}

func (in *inherited) close() {
	for _, f := range in.owned {
		f.Close()
	}
	in.owned = nil
}

// listener is the master's listening socket as bound by the launcher.
type listener struct {
	file *os.File
	addr *net.TCPAddr
}

// masterListener binds the master's listening socket in the launcher, so
// that its address is known before any node starts, and returns it as a
// file to hand to rank 0, with its address.
func masterListener(addr string) (listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return listener{}, fmt.Errorf("listen for the master on %s: %w", addr, err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return listener{}, fmt.Errorf("listener file: %w", err)
	}
	return listener{f, ln.Addr().(*net.TCPAddr)}, nil
}
