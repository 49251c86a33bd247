// Package nodeenv owns the contract between a launcher and a node: the
// environment variables through which `cape run`, ssh, srun or mpirun tell a
// node process its rank, the job's size, where the master listens and how to
// obtain the job's secret token.
//
// In a nutshell: the launcher sets Rank, Size, Job and either ListenFD (the
// master inherits an already bound listening socket) or Master (a slave's
// dial address). The token never appears on a command line; it arrives on an
// inherited pipe (TokenFD), in a file (TokenFile) or, under a scheduler that
// can only pass variables, in Token (hex). The ssh launcher passes the
// token on stdin and sets Lifeline to 0: the node (package cape, which owns
// the node's exit) exits when its stdin closes, so that no remote node
// outlives its launcher.
//
// Under srun or mpirun no cape launcher runs: a task without Rank and Size
// takes them from the scheduler's variables (SLURM_PROCID and
// SLURM_STEP_NUM_TASKS, OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE,
// PMI_RANK and PMI_SIZE), finds the master from SLURM_STEP_NODELIST, from
// mpirun's address or from a Master the user sets, derives a port shared by
// every task from the scheduler's job id (or takes Port), and reads the
// token the user provides in TokenFile or Token. Rank 0 listens on loopback
// when every task is on its host; [Listen] opens the master's listener and
// names the port and Port when another program holds it.
//
// The token is a secret: a token file that group or others may access is
// refused (as ssh refuses such a private key), and Token is removed from
// the process's environment once read, so that the program's children do
// not inherit it.
package nodeenv

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Variable names.
const (
	Rank      = "CAPE_RANK"        // this node's rank, 0 is the master
	Size      = "CAPE_SIZE"        // number of nodes
	Job       = "CAPE_JOB"         // job id, hex; not secret
	Master    = "CAPE_MASTER"      // host:port the slaves dial
	ListenFD  = "CAPE_LISTEN_FD"   // master: inherited listening socket
	TokenFD   = "CAPE_TOKEN_FD"    // inherited pipe carrying the token (hex, one line)
	TokenFile = "CAPE_TOKEN_FILE"  // file holding the token (hex)
	Token     = "CAPE_TOKEN"       // the token itself (hex); for schedulers only
	Monitor   = "CAPE_MONITOR"     // monitor backend name
	Compress  = "CAPE_COMPRESS"    // none|s2|zstd|auto
	Stats     = "CAPE_STATS"       // "1": each node prints per-region statistics on stderr
	Verify    = "CAPE_VERIFY"      // "1": the master re-runs regions sequentially and compares
	Timeout   = "CAPE_TIMEOUT"     // peer timeout, Go duration
	Lifeline  = "CAPE_LIFELINE_FD" // inherited fd held open by the launcher: EOF means stop (ssh: 0)
	Broadcast = "CAPE_BROADCAST"   // merged-delta broadcast scheme: auto, star, tree or chain
	MaxLost   = "CAPE_MAX_LOST"    // slaves the job may lose and go on without; -1 or unset: no cap
	Transfer  = "CAPE_TRANSFER"    // region results: eager (every node gets every write) or lazy/auto/homes (pages on demand)
	Replicas  = "CAPE_REPLICAS"    // distributed homes: auto (a node's own helper where all run on one host) or buddy (always another node)
	Fanout    = "CAPE_FANOUT"      // the master's releases under homes: auto, serial (one slave after another) or parallel (concurrent writes)

	Checkpoint    = "CAPE_CHECKPOINT"     // the master's checkpoint directory (cape run --checkpoint)
	Restart       = "CAPE_RESTART"        // "1": replay the checkpoint log, then continue (every node)
	CheckpointMax = "CAPE_CHECKPOINT_MAX" // bound on the checkpoint directory's bytes, e.g. 2G
	// CheckpointEvery is the least time between two images of an
	// images-only log (distributed homes), Go duration; "0" takes one at
	// every checkpoint point.
	CheckpointEvery = "CAPE_CHECKPOINT_EVERY"
)

// Config is what a node learns from its environment.
type Config struct {
	Rank, Size int
	Job        uint64
	Master     string // slaves: address to dial
	ListenFD   int    // master: inherited listener, or -1
	Token      []byte
	Monitor    string
	Compress   string
	Stats      bool
	Verify     bool
	// Timeout is, on the launcher's side, the peer timeout to pass to the
	// nodes as Go duration text (cape run --timeout); "" means the
	// transport's default. Read leaves it as found and parses it into
	// PeerTimeout. (internal/launch reads it; once it reads PeerTimeout,
	// this field can go.)
	Timeout string
	// PeerTimeout is how long a silent peer is waited for: Timeout, parsed
	// and validated by Read; 0 means the transport's default.
	PeerTimeout time.Duration
	Broadcast   string // merged-delta broadcast scheme (Broadcast); "" means auto
	Transfer    string // how region results travel (Transfer): "", eager, lazy, auto or homes
	Replicas    string // where a node's written pages are replicated under homes (Replicas): "", auto or buddy
	Fanout      string // how the master writes its releases under homes (Fanout): "", auto, serial or parallel
	// MaxLost is how many slaves the job may lose and still complete, their
	// work re-executed by the survivors (MaxLost); negative means no cap
	// (the job goes on while the master and one node remain), 0 means the
	// first loss stops the job.
	MaxLost   int
	Scheduler string // "" under a cape launcher, else SchedSlurm, SchedOpenMPI or SchedPMI
	PortFrom  string // under a scheduler: where Master's port came from: Port, Master or "derived"
	// Lifeline, if not nil, is held open by the launcher: the node must
	// read it and end (with status LifelineExit) when it reaches EOF.
	Lifeline *os.File
	// Checkpoint is the directory of the master's durable checkpoint log
	// ("" for none); Restart replays it first (every node must know, since
	// the master tells the slaves how many regions it replays);
	// CheckpointMax bounds the directory's bytes (0: no bound).
	Checkpoint    string
	Restart       bool
	CheckpointMax int64
	// CheckpointEvery is the least time between two images of the log
	// under distributed homes: 0 means the default, and a negative time
	// an image at every checkpoint point.
	CheckpointEvery time.Duration
	// JoinDir is set on a node that joins a running job (Join): the
	// job's checkpoint directory, whose join file gave this Config and
	// whose log the node replays. Rank is then the first rank a joining
	// node may take; MaxJoin (on the master too) is how many may join.
	JoinDir string
	MaxJoin int

	status *os.File // the launcher's status pipe (StatusFD), or nil
}

// ErrNotLaunched is returned by Read when the process was not started by a
// CAPE launcher: it then runs as a single node.
var ErrNotLaunched = errors.New("not started by a cape launcher")

// Read reads the node configuration from the environment, taking the token
// from TokenFD, TokenFile or Token, in that order. Without Rank and Size it
// looks for a scheduler's variables (srun, mpirun: see fromScheduler); a
// task of a one-task step, or a process no launcher started, gets
// ErrNotLaunched or a single-node Config.
func Read() (*Config, error) {
	get := os.Getenv
	if dir := get(Join); dir != "" {
		return readJoin(dir)
	}
	if get(Size) == "" && get(Rank) == "" {
		return readScheduled(get)
	}
	c := &Config{ListenFD: -1}
	err := c.readSettings(get)
	if err != nil {
		return nil, err
	}
	if c.Size, err = atoi(Size, 1); err != nil {
		return nil, err
	}
	if c.Rank, err = atoi(Rank, 0); err != nil {
		return nil, err
	}
	if c.Rank >= c.Size {
		return nil, fmt.Errorf("%s=%d is not below %s=%d", Rank, c.Rank, Size, c.Size)
	}
	if s := get(Job); s != "" {
		if c.Job, err = strconv.ParseUint(s, 16, 64); err != nil {
			return nil, fmt.Errorf("%s=%q: want a hexadecimal job id", Job, s)
		}
	}
	c.Master = get(Master)
	if s := get(ListenFD); s != "" {
		if c.ListenFD, err = atoi(ListenFD, 3); err != nil {
			return nil, err
		}
	}
	if c.status, err = openStatus(); err != nil {
		return nil, err
	}
	if c.Size > 1 {
		if c.Token, err = readToken(); err != nil {
			return nil, err
		}
		if c.Lifeline, err = lifeline(); err != nil {
			return nil, err
		}
		if c.Rank > 0 && c.Master == "" {
			return nil, fmt.Errorf("%s is not set: a slave needs the master's address", Master)
		}
		if c.Rank == 0 && c.ListenFD < 0 && c.Master == "" {
			return nil, fmt.Errorf("neither %s nor %s is set: the master needs an address to listen on", ListenFD, Master)
		}
	}
	return c, nil
}

// readSettings reads the job's settings, the same whichever launcher
// started the node: monitor, compression, broadcast, transfer, --stats,
// --verify, --max-lost, the checkpoint log and the peer timeout.
func (c *Config) readSettings(get func(string) string) error {
	c.Monitor, c.Compress, c.Broadcast, c.Transfer = get(Monitor), get(Compress), get(Broadcast), get(Transfer)
	c.Stats, c.Verify = get(Stats) == "1", get(Verify) == "1"
	switch c.Replicas = get(Replicas); c.Replicas {
	case "", "auto", "buddy":
	default:
		return fmt.Errorf("%s=%q: want auto or buddy", Replicas, c.Replicas)
	}
	switch c.Fanout = get(Fanout); c.Fanout {
	case "", "auto", "serial", "parallel":
	default:
		return fmt.Errorf("%s=%q: want auto, serial or parallel", Fanout, c.Fanout)
	}
	var err error
	if c.MaxLost, err = maxLost(get); err != nil {
		return err
	}
	if err = c.readCheckpoint(get); err != nil {
		return err
	}
	c.Timeout, c.PeerTimeout, err = peerTimeout(get)
	return err
}

// readScheduled reads the configuration of a task started by srun or
// mpirun (see fromScheduler); the token comes from TokenFile or Token, which
// the user sets for every task.
func readScheduled(get func(string) string) (*Config, error) {
	c, err := fromScheduler(get)
	if err != nil {
		return nil, err
	}
	if err := c.readSettings(get); err != nil {
		return nil, err
	}
	if c.Size > 1 {
		if c.Token, err = readToken(); err != nil {
			return nil, fmt.Errorf("%s task %d of %d: %w", c.Scheduler, c.Rank, c.Size, err)
		}
	}
	return c, nil
}

func atoi(name string, min int) (int, error) {
	s := os.Getenv(name)
	v, err := strconv.Atoi(s)
	if err != nil || v < min {
		return 0, fmt.Errorf("%s=%q: want an integer ≥ %d", name, s, min)
	}
	return v, nil
}

// readLine reads up to the first newline (or EOF) one byte at a time, so
// that nothing after the line is consumed: under ssh the token arrives on
// stdin, which then stays open as the node's lifeline.
func readLine(r io.Reader, limit int) ([]byte, error) {
	var b []byte
	var c [1]byte
	for len(b) < limit {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return b, nil
			}
			b = append(b, c[0])
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, fmt.Errorf("no newline in the first %d bytes", limit)
}

// readToken reads the job's token from TokenFD, TokenFile or Token, in that
// order. It removes Token from the process's environment whichever it used,
// so that the processes the program starts do not inherit the secret.
func readToken() ([]byte, error) {
	defer os.Unsetenv(Token)
	var text, from string
	switch {
	case os.Getenv(TokenFD) != "":
		fd, err := atoi(TokenFD, 0)
		if err != nil {
			return nil, err
		}
		f := inherited(fd)
		b, err := readLine(f, 4096)
		if os.Getenv(Lifeline) != strconv.Itoa(fd) {
			f.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("read token from fd %d: %w", fd, err)
		}
		text, from = string(b), TokenFD
	case os.Getenv(TokenFile) != "":
		name := os.Getenv(TokenFile)
		b, err := readTokenFile(name)
		if err != nil {
			return nil, err
		}
		text, from = string(b), name
	case os.Getenv(Token) != "":
		text, from = os.Getenv(Token), Token
	default:
		return nil, fmt.Errorf("no job token: set %s or %s (a launcher sets %s)", TokenFile, Token, TokenFD)
	}
	tok, err := hex.DecodeString(strings.TrimSpace(text))
	if err != nil || len(tok) < 16 {
		return nil, fmt.Errorf("token from %s: want at least 32 hexadecimal digits", from)
	}
	return tok, nil
}

// maxTokenFile bounds the size of a token file.
const maxTokenFile = 4096

// readTokenFile reads a token file. Like ssh with a private key, it refuses
// a file that its group or others may access, or that another user owns:
// anyone who can read the token can join the job and run code in it.
func readTokenFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read token: %w", err)
	}
	if err := ownedPrivate(name, fi); err != nil {
		return nil, fmt.Errorf("%s: the token file: %w", TokenFile, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, fmt.Errorf("read token: %w", err)
	}
	if len(b) > maxTokenFile {
		return nil, fmt.Errorf("%s=%s: the token file is over %d bytes", TokenFile, name, maxTokenFile)
	}
	return b, nil
}

// Environ returns the variables that describe rank r of a job, to append to
// a node's environment. The token is not among them.
func Environ(c Config) []string {
	env := []string{
		Rank + "=" + strconv.Itoa(c.Rank),
		Size + "=" + strconv.Itoa(c.Size),
		Job + "=" + strconv.FormatUint(c.Job, 16),
	}
	add := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	add(Master, c.Master)
	if c.ListenFD >= 0 {
		add(ListenFD, strconv.Itoa(c.ListenFD))
	}
	add(Monitor, c.Monitor)
	add(Compress, c.Compress)
	add(Transfer, c.Transfer)
	add(Replicas, c.Replicas)
	add(Fanout, c.Fanout)
	if c.PeerTimeout > 0 {
		add(Timeout, c.PeerTimeout.String())
	} else {
		add(Timeout, c.Timeout)
	}
	if c.Stats {
		add(Stats, "1")
	}
	if c.Verify {
		add(Verify, "1")
	}
	add(MaxLost, strconv.Itoa(c.MaxLost))
	add(Checkpoint, c.Checkpoint)
	if c.Restart {
		add(Restart, "1")
	}
	if c.CheckpointMax > 0 {
		add(CheckpointMax, strconv.FormatInt(c.CheckpointMax, 10))
	}
	if c.CheckpointEvery != 0 {
		add(CheckpointEvery, max(c.CheckpointEvery, 0).String())
	}
	return env
}
