package cape

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cape-go/cape/cape/internal/durable"
	"github.com/cape-go/cape/cape/internal/fault"
	"github.com/cape-go/cape/cape/internal/hints"
	"github.com/cape-go/cape/cape/internal/lazy"
	"github.com/cape-go/cape/cape/internal/refusal"
	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/cape/internal/stats"
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
	// abandoned is a region a panic unwound part-way (Guard); the node
	// cannot go on after it.
	abandoned *Region
	// regionsOver: no region runs any more (regionsDone). The master's
	// slavesEnded: every slave's program has ended (awaitSlavesEnd), with
	// slavesEndErr.
	regionsOver  bool
	slavesEnded  bool
	slavesEndErr error
	rank, size   int
	name         string       // "node 2" or "master"
	statsTotal   stats.Totals // --stats: the regions' lines summed
	cfg          *nodeenv.Config
	plan         setup.Plan // what the node set up at Init (package setup): its one copy

	arena   *arena.Arena
	tracker monitor.Tracker // nil on a single node
	ckpt    checkpointer    // with tracker: the checkpoint mode
	// loopback: every peer is on this machine (setup.SendCompression).
	loopback bool
	faults   *fault.Set // CAPE_FAULT's faults not fired yet
	// computeFault is the compute fault armed at this region's start, until it fires.
	computeFault atomic.Pointer[fault.Spec]

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
	homes *homesNode   // distributed homes on (homes.go)
	// verified counts the regions --verify re-ran and found alike.
	verified int
	// listenAddr is the master's port's address (its page helper listens
	// on the same host).
	listenAddr net.Addr

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
	// exitCode: the status the program ends with where it calls os.Exit
	// or log.Fatal (ExitCode), else -1.
	exitCode int
	// goRegions: the program starts goroutines (GoroutineRegions).
	goRegions bool

	closing atomic.Bool // Finalize has begun: the end of the connection is expected
	// refused rate-limits the notices of connections refused on the
	// master's port (package refusal).
	refused *refusal.Limiter

	stdin       stdio.Stream // this node's side of the input stream (stdin.go), or nil
	stdinClosed sync.Once    // closeStdin's: the stream is closed once

	joins   *roster.Joins // master of a checkpointed job: the nodes joining it (join.go)
	joining *joiner       // a node joining a running job, until its end (join_node.go)
}

// watchGrace is how long a slave's watchdogs wait (setup.WatchGrace).
const watchGrace = setup.WatchGrace

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
	n.goRegions = o.goRegions
	self = n
	sameRandom()
	nodeenv.Forget()
	n.fault("init", 0)
	return nil
}

// sameRandom makes math/rand's top-level functions draw the same numbers
// on every node (GODEBUG=randautoseed=0: seeded with 1, as before Go
// 1.20), unless the program's environment chose otherwise: every node
// runs the sequential code, which must compute the same values on each.
// It takes effect at the package's first call, which a program makes in
// main at the earliest.
func sameRandom() {
	cur := os.Getenv("GODEBUG")
	for _, kv := range strings.Split(cur, ",") {
		if strings.HasPrefix(strings.TrimSpace(kv), "randautoseed=") {
			return
		}
	}
	if cur != "" {
		cur += ","
	}
	_ = os.Setenv("GODEBUG", cur+"randautoseed=0")
}

// join reads the node's configuration, plans its set-up (package setup)
// and carries the plan out.
func join(o options) (_ *node, err error) {
	cfg, err := nodeenv.Read()
	if errors.Is(err, nodeenv.ErrNotLaunched) {
		cfg, err = &nodeenv.Config{Size: 1, ListenFD: -1}, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && cfg.Size > 1 {
			// Tells the launcher which node the error points to (this one,
			// unless it is about a peer): the others are still waiting to
			// join, and are not the job's failure.
			cfg.ReportFailure(err)
		}
	}()
	n := &node{rank: cfg.Rank, size: cfg.Size, cfg: cfg, exitCode: -1, members: roster.NewMembers(cfg.Size, cfg.MaxLost)}
	if n.faults, err = fault.Parse(nodeenv.FaultSpec()); err != nil {
		return nil, err
	}
	n.refused = refusal.New(func(s string) { notice("cape: node %d: %s\n", n.rank, s) }, refusal.WallClock)
	if n.arena, err = sharedArena(); err != nil {
		return nil, err
	}
	p, err := setup.New(cfg, setup.Runtime{EveryRegionLast: o.everyRegionLast, ArenaSize: n.arena.Size(), MaxJoiners: maxJoiners})
	if err != nil {
		return nil, err
	}
	n.plan, n.name = *p, p.Name
	p = &n.plan
	if err := n.startOutput(p); err != nil {
		return nil, err
	}
	if p.Role == setup.Single {
		if err := n.initDurable(); err != nil {
			return n, err
		}
		return n, n.newTracker()
	}
	if p.WatchLifeline {
		lf, err := stdio.OffStdin(cfg.Lifeline)
		if err != nil {
			return nil, err
		}
		go watchLifeline(lf)
	}
	if err := n.newTracker(); err != nil {
		return nil, err
	}
	if err := n.initDurable(); err != nil {
		return nil, err
	}
	tcfg := p.Transport
	// Relay links that could not be built are reported, naming the
	// nodes; the job goes on with the star broadcast.
	tcfg.Notice = n.transportNotice
	switch p.Role {
	case setup.Joiner:
		return n, n.startJoining(tcfg)
	case setup.Master:
		return n, n.startMaster(tcfg)
	}
	return n, n.startSlave(tcfg)
}

// startOutput drops a scheduled slave's standard output and captures the
// regions' output, as the plan says.
func (n *node) startOutput(p *setup.Plan) error {
	if p.DropStdout {
		// Only the master's output is the job's (cape run drops the
		// slaves' itself).
		if err := stdio.DropStdout(); err != nil {
			return err
		}
	}
	if p.CaptureOutput {
		var err error
		if n.out, err = stdio.NewCapture(); err != nil {
			return fmt.Errorf("capture regions' standard output: %w", err)
		}
	}
	return nil
}

// startSlave connects a slave of a multi-node job to its master and takes
// part in the set-up the master leads (startMaster).
func (n *node) startSlave(tcfg transport.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	if n.slave, err = transport.Dial(ctx, n.cfg.Master, n.rank, tcfg); err != nil {
		return fmt.Errorf("connect to the master: %w", err)
	}
	n.loopback = setup.LoopbackHost(n.cfg.Master)
	if err := n.followStartup(); err != nil {
		return err
	}
	if n.plan.WatchMaster {
		go n.watchMaster()
	}
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
func (n *node) startMaster(tcfg transport.Config) error {
	ln, err := nodeenv.Listen(n.cfg)
	if err != nil {
		return err
	}
	n.loopback = setup.LoopbackAddr(ln.Addr())
	n.listenAddr = ln.Addr()
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
	if err := n.followStartup(); err != nil {
		return err
	}
	if n.plan.Stats {
		notice("cape: master: %d nodes, transfer %s, monitor %s\n", n.size, n.transferInUse(), n.tracker.Name())
	}
	if n.plan.Admission {
		err = n.startAdmission(mln)
	} else {
		mln.Close() // nothing more is accepted for the job's connection
	}
	n.router.Seal()
	return err
}

// transferInUse names the transfer the job agreed on (--transfer).
func (n *node) transferInUse() string {
	switch {
	case n.homes != nil:
		return "homes"
	case n.lazyM != nil:
		return "lazy"
	}
	return "eager"
}

// followStartup carries out the job's start-up sequence (wire.Startup) on
// this node's side, phase by phase (setup.Plan.Startup): the master's and
// every slave's code run the same phases in the same order, so their
// messages pair up.
func (n *node) followStartup() error {
	for _, ph := range n.plan.Startup {
		var err error
		switch ph {
		case wire.PhaseLazy:
			err = n.setUpLazy()
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

// Finalize ends the job: the master tells the slaves to stop; a slave closes
// its connection. It is idempotent.
func Finalize() error {
	initMu.Lock()
	n := self
	initMu.Unlock()
	if n == nil || n.finished {
		return nil
	}
	if err := n.checkAbandoned(); err != nil {
		return err
	}
	if err := n.tellLostOutput(); err != nil {
		return err
	}
	n.printTotals()
	n.finished = true
	n.closing.Store(true)
	defer func() { statsOut.Flush() }() // reads statsOut at return, not now
	var errs []error
	if n.master != nil {
		n.endAdmission()
		n.dropLost()
		if err := n.awaitSlavesEnd(); err != nil {
			errs = append(errs, err) // Done below ends that slave's region
		}
		_ = n.master.Broadcast(transport.Message{Kind: wire.Done, Seq: n.seq})
		// Keep the job up until every slave has closed: a slave still
		// receiving (or relaying) the last merged delta would otherwise
		// see the master's goodbye first and its watchdog would end it.
		_ = n.master.WaitClosed(0)
		errs = append(errs, n.master.Close())
		errs = append(errs, n.closeStdin())
		n.refused.Flush()
		statsOut.Flush()
		n.summary()
	}
	if n.rank == 0 && n.plan.Verify {
		notice("cape: --verify: %d region(s) re-run sequentially on the master, each with the parallel run's result\n", n.verified)
	}
	if n.slave != nil {
		if n.homes != nil && n.cur != nil {
			// The program ends inside a region (os.Exit or log.Fatal
			// in an iteration): the master re-runs this node's units,
			// as a lost node's, and may fetch the pages it holds, which
			// with self replicas its helper serves on after it.
			n.homes.lost = true
		}
		// Distributed homes: the master may still fetch pages this node
		// holds until its program ends.
		n.awaitMasterEnd()
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
	err := errors.Join(errs...)
	if err == nil && n.rank == 0 && n.size > 1 {
		// The job ended well: whatever status the program now exits
		// with is its own (os.Exit after Finalize), and a slave failing
		// after this is not the job's cause (the launcher's status pipe).
		n.cfg.ReportEnded("finalized")
	}
	return err
}

// abort tells the slaves that the job failed, so that they stop at once.
func (n *node) abort(reason string) {
	if n.master != nil && !n.finished {
		n.finished = true
		n.endAdmission()
		_ = n.master.Broadcast(transport.Message{Kind: wire.Abort, Seq: n.seq, Payload: []byte(reason)})
		_ = n.master.Close()
		n.refused.Flush()
	}
}

// compression is the compression to use for a message
// (setup.SendCompression).
func (n *node) compression() delta.Compression {
	return setup.SendCompression(n.plan.Compression, n.loopback)
}
