package cape

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cape-go/cape/cape/internal/durable"
	"github.com/cape-go/cape/cape/internal/fault"
	"github.com/cape-go/cape/cape/internal/hints"
	"github.com/cape-go/cape/cape/internal/lazy"
	"github.com/cape-go/cape/cape/internal/refusal"
	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/stdio"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// node is the process-wide state of this node.
type node struct {
	rank, size int
	name       string // "node 2" or "master"
	cfg        *nodeenv.Config

	arena   *arena.Arena
	tracker monitor.Tracker // nil on a single node
	ckpt    checkpointer    // with tracker: the checkpoint mode
	comp    delta.Compression
	// loopback: every peer is on this machine, where sending bytes costs
	// less than compressing them, so auto compression sends them raw.
	loopback bool
	stats    bool
	verify   bool       // master under --verify: regions are re-run sequentially
	faults   *fault.Set // CAPE_FAULT's faults not fired yet

	master *transport.Master // rank 0 of a multi-node job
	slave  *transport.Slave  // rank > 0
	// router hands the connections to the master's port to the job's
	// services (master of a multi-node job).
	router *transport.Router

	xch  exchangeState // the exchange's buffers, kept from one region to the next
	rost *rosterDriver // master: the regions' roster and receivers, reused (reexec.go)

	// members is the live set (and, on the master, the losses so far),
	// used from the program's goroutine but for the losses (see lossMu).
	members roster.Members
	// lossMu protects the master's losses in members (the master's
	// receivers reach them through the roster).
	lossMu sync.Mutex

	lazyM *lazy.Master // master with lazy transfer on (lazy.go)
	lazyS *lazy.Slave  // slave with lazy transfer on

	seq uint64 // number of regions begun
	// The stretch since the last outermost region stopped (hint_unsafe.go).
	gap hints.Gap
	// dur is the master's durable checkpoint log (--checkpoint), or nil;
	// regions numbered up to replayTo are replayed from it (--restart).
	dur      *durable.Log
	replayTo uint64
	// pending is a restart's image, restored at its checkpoint point;
	// until then regions compute (they precede the image).
	pending *durable.Pending
	cur     *Region // the region between Start and Stop (or in its --verify re-run), or nil
	// out captures standard output while a multi-node region computes
	// (output.go); nil where the platform cannot.
	out      *stdio.Capture
	finished bool
	// everyRegionLast: Init was told that every region is the program's
	// last (EveryRegionLast).
	everyRegionLast bool

	closing atomic.Bool // Finalize has begun: the end of the connection is expected
	// refused rate-limits the notices of connections refused on the
	// master's port (package refusal).
	refused *refusal.Limiter

	stdin stdio.Stream // this node's side of the input stream (stdin.go), or nil

	joins   *joins  // master of a checkpointed job: the nodes joining it (join.go)
	joining *joiner // a node joining a running job, until its end (join_node.go)
}

// watchGrace is how long a slave's watchdog leaves the program to notice a
// lost master by itself (in a receive, with the precise message) before it
// ends the node.
const watchGrace = 500 * time.Millisecond

var (
	initMu  sync.Mutex
	self    *node
	initErr error
)

// the returns the node, initialising a single node if Init was not called.
func the() *node {
	if self == nil {
		if err := Init(); err != nil {
			fail(err)
		}
	}
	return self
}

// Init joins the job described by the launcher's environment (rank, size,
// master address, token). Without that environment the program runs as a
// single node (rank 0 of 1). It is idempotent. The options are what the
// translator proved about the program.
func Init(opts ...Option) error {
	initMu.Lock()
	defer initMu.Unlock()
	if self != nil || initErr != nil {
		return initErr
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	n, err := join(o)
	if err != nil {
		initErr = fmt.Errorf("init: %w", err)
		return initErr
	}
	self = n
	n.fault("init", 0)
	return nil
}

// An Option is a fact about the whole program that the translator proved,
// given to Init.
type Option func(*options)

type options struct {
	everyRegionLast bool
}

// EveryRegionLast says that every parallel region of the program is its
// last (Region.Last): the slaves leave after the first one that runs, so
// no slave ever reads memory that another node wrote, and the default
// transfer (auto) does not set up lazy transfer, whose helpers would only
// cost the job their start.
func EveryRegionLast() Option { return func(o *options) { o.everyRegionLast = true } }

func join(o options) (*node, error) {
	cfg, err := nodeenv.Read()
	if errors.Is(err, nodeenv.ErrNotLaunched) {
		cfg, err = &nodeenv.Config{Size: 1, ListenFD: -1}, nil
	}
	if err != nil {
		return nil, err
	}
	n := &node{rank: cfg.Rank, size: cfg.Size, cfg: cfg, stats: cfg.Stats, verify: cfg.Verify && cfg.Rank == 0,
		members: roster.NewMembers(cfg.Size, cfg.MaxLost), everyRegionLast: o.everyRegionLast}
	if n.faults, err = fault.Parse(nodeenv.FaultSpec()); err != nil {
		return nil, err
	}
	n.name = "master"
	if n.rank > 0 {
		n.name = fmt.Sprintf("node %d", n.rank)
	}
	n.refused = refusal.New(func(s string) { notice("cape: node %d: %s\n", n.rank, s) }, refusal.WallClock)
	if n.arena, err = sharedArena(); err != nil {
		return nil, err
	}
	if cfg.Scheduler != "" && n.rank > 0 {
		// Only the master's output is the job's (cape run drops the
		// slaves' itself).
		if err := stdio.DropStdout(); err != nil {
			return nil, err
		}
	}
	if n.size > 1 || n.verify {
		if n.out, err = stdio.NewCapture(); err != nil {
			return nil, fmt.Errorf("capture regions' standard output: %w", err)
		}
	}
	if n.size == 1 {
		return n, n.initDurable()
	}
	if cfg.Lifeline != nil {
		lf, err := stdio.OffStdin(cfg.Lifeline)
		if err != nil {
			return nil, err
		}
		go watchLifeline(lf)
	}
	if n.comp, err = delta.ParseCompression(orDefault(cfg.Compress, "auto")); err != nil {
		return nil, err
	}
	backend := orDefault(cfg.Monitor, "auto")
	mopts := monitor.Options{
		PageSize: n.arena.PageSize(),
		Notice: func(s string) {
			if n.rank == 0 {
				notice("cape: %s\n", s)
			}
		},
	}
	n.tracker, err = n.newTracker(backend, mopts)
	if err != nil {
		return nil, fmt.Errorf("monitor %q: %w", backend, err)
	}
	n.ckpt = newCheckpointer(backend, n.rank)
	if err := n.initDurable(); err != nil {
		return nil, err
	}
	tcfg := transport.Config{Token: cfg.Token, JobID: cfg.Job, Size: cfg.Size, Broadcast: cfg.Broadcast,
		// Losses may be survived: a relayed broadcast heals around a
		// lost relay node (the merged delta's buffer is not reused).
		HealRelay: cfg.MaxLost != 0,
		// The largest message is a delta of the whole arena: its payload,
		// a run table that cannot exceed it, and small headers.
		MaxFrame: max(transport.DefaultMaxFrame, 2*n.arena.Size()+1<<20),
		// Relay links that could not be built are reported, naming the
		// nodes; the job goes on with the star broadcast.
		Notice: n.transportNotice}
	if d := cfg.PeerTimeout; d > 0 {
		tcfg.PeerTimeout = d
		tcfg.HandshakeTimeout = 3 * d
	}
	if cfg.Checkpoint != "" {
		// A checkpointed job admits joining nodes (join.go).
		tcfg.MaxJoin = maxJoiners
	}
	if cfg.JoinDir != "" {
		return n, n.startJoining(tcfg)
	}
	if n.rank == 0 {
		return n, n.startMaster(tcfg, backend, mopts)
	}
	return n, n.startSlave(tcfg, backend, mopts)
}

// startSlave connects a slave of a multi-node job to its master and takes
// part in the set-up the master leads (startMaster).
func (n *node) startSlave(tcfg transport.Config, backend string, mopts monitor.Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	if n.slave, err = transport.Dial(ctx, n.cfg.Master, n.rank, tcfg); err != nil {
		return fmt.Errorf("connect to the master: %w", err)
	}
	if host, _, err := net.SplitHostPort(n.cfg.Master); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			n.loopback = true
		}
	}
	if err := n.followStartup(backend, mopts); err != nil {
		return err
	}
	go n.watchMaster()
	return nil
}

// transportNotice prints what a transport wants the user to know; the
// notices of refused connections go through the rate limit.
func (n *node) transportNotice(s string) {
	if refusal.Is(s) {
		n.refused.Note(s)
		return
	}
	notice("cape: node %d: %s\n", n.rank, s)
}

// startMaster sets up the master of a multi-node job: it waits for the
// slaves, agrees on lazy transfer and standard input with them, tells them
// a restart's replay and, with a checkpoint log, admits joining nodes.
// Every connection of the job comes to the master's one port (the job's,
// the page helpers', the input stream's, the joining nodes'): a
// transport.Router hands each to its service, which authenticates it with
// its own handshake; the port closes once the services stop accepting.
func (n *node) startMaster(tcfg transport.Config, backend string, mopts monitor.Options) error {
	ln, err := nodeenv.Listen(n.cfg)
	if err != nil {
		return err
	}
	n.loopback = isLoopback(ln.Addr())
	if n.router, err = transport.NewRouter(ln, tcfg); err != nil {
		ln.Close()
		return err
	}
	mln, err := n.router.Listen(tcfg.JobID)
	if err != nil {
		return err
	}
	if n.master, err = transport.NewMaster(mln, tcfg); err != nil {
		return fmt.Errorf("wait for %d slaves: %w", n.size-1, err)
	}
	if err := n.followStartup(backend, mopts); err != nil {
		return err
	}
	if n.dur != nil {
		err = n.startAdmission(mln)
	} else {
		mln.Close() // nothing more is accepted for the job's connection
	}
	n.router.Seal()
	return err
}

// followStartup carries out the job's start-up sequence (wire.Startup) on
// this node's side, phase by phase: the master's and every slave's code
// run the same phases in the same order, so their messages pair up.
func (n *node) followStartup(backend string, mopts monitor.Options) error {
	wantsLazy, err := wantLazy(n)
	if err != nil {
		return err
	}
	for _, ph := range wire.Phases(wire.Setup{Lazy: wantsLazy, Restart: n.cfg.Restart}) {
		var err error
		switch ph {
		case wire.PhaseLazy:
			err = n.setUpLazy(backend, mopts)
		case wire.PhaseStdin:
			if n.rank == 0 {
				err = n.shareStdinMaster()
			} else {
				err = n.takeStdinSlave()
			}
		case wire.PhaseReplay:
			if n.rank == 0 {
				err = n.announceReplay()
			} else {
				err = n.awaitReplay()
			}
		default:
			err = fmt.Errorf("start-up: no code for phase %v", ph)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// listenBeside returns a listener for one more service of the master (the
// lazy page server, the input stream), whose handshakes use jobID, on the
// master's port, with that port.
func (n *node) listenBeside(jobID uint64) (net.Listener, int, error) {
	l, err := n.router.Listen(jobID)
	if err != nil {
		return nil, 0, err
	}
	return l, l.Addr().(*net.TCPAddr).Port, nil
}

// sendEach sends the same set-up message to every slave of the job's
// start, one by one (at Init, before any region).
func (n *node) sendEach(kind uint8, payload []byte) error {
	for rank := 1; rank < n.size; rank++ {
		if err := n.master.Send(rank, transport.Message{Kind: kind, Payload: payload}); err != nil {
			return err
		}
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Finalize ends the job: the master tells the slaves to stop; a slave closes
// its connection. It is idempotent.
func Finalize() error {
	initMu.Lock()
	n := self
	initMu.Unlock()
	if n == nil || n.finished {
		return nil
	}
	n.finished = true
	n.closing.Store(true)
	defer flushStats()
	var errs []error
	if n.master != nil {
		n.endAdmission()
		n.dropLost()
		_ = n.master.Broadcast(transport.Message{Kind: kindDone, Seq: n.seq})
		// Keep the job up until every slave has closed: a slave still
		// receiving (or relaying) the last merged delta would otherwise
		// see the master's goodbye first and its watchdog would end it.
		_ = n.master.WaitClosed(0)
		errs = append(errs, n.master.Close())
		errs = append(errs, n.closeStdin())
		n.refused.Flush()
		flushStats()
		n.summary()
	}
	if n.slave != nil {
		n.joinSummary()
		errs = append(errs, n.closeStdin(), n.slave.Close())
	}
	errs = append(errs, n.closeLazy())
	if n.router != nil {
		errs = append(errs, n.router.Close())
	}
	if n.tracker != nil {
		errs = append(errs, n.tracker.Close())
	}
	errs = append(errs, n.closeDurable())
	return errors.Join(errs...)
}

// abort tells the slaves that the job failed, so that they stop at once.
func (n *node) abort(reason string) {
	if n.master != nil && !n.finished {
		n.finished = true
		n.endAdmission()
		_ = n.master.Broadcast(transport.Message{Kind: kindAbort, Seq: n.seq, Payload: []byte(reason)})
		_ = n.master.Close()
		n.refused.Flush()
	}
}

// Must ends the node when err is not nil: with status 0 for ErrJobDone,
// and otherwise with status 1, reporting err on stderr naming this node (the
// master also tells the slaves that the job failed). Generated code calls it
// around runtime calls.
func Must(err error) {
	if err != nil {
		fail(err)
	}
}

// Master reports whether this node is the master (rank 0).
func Master() bool { return the().rank == 0 }

// Rank is this node's rank in [0, Size()).
func Rank() int { return the().rank }

// Size is the number of nodes in the job.
func Size() int { return the().size }

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// compression is the compression to use for a message: auto means none
// between nodes of one machine, and delta's measured choice otherwise.
func (n *node) compression() delta.Compression {
	if n.comp == delta.Auto && n.loopback {
		return delta.None
	}
	return n.comp
}
