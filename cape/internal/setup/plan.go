package setup

import (
	"fmt"

	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/cape/internal/lazy"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// A Role is how a node takes part in its job, and so how it connects.
type Role uint8

const (
	Single Role = iota // the job's only node: no transport
	Master             // rank 0 of a multi-node job: listens and leads the start-up
	Slave              // a rank above 0 at the job's start: dials the master, follows the start-up
	Joiner             // a node joining a running job (cape join): dials the master, replays its log
)

func (r Role) String() string {
	switch r {
	case Single:
		return "single node"
	case Master:
		return "master"
	case Slave:
		return "slave"
	case Joiner:
		return "joining node"
	}
	return fmt.Sprintf("role %d", uint8(r))
}

// A Tracker says which monitor a node creates at Init.
type Tracker uint8

const (
	NoTracker    Tracker = iota // a single node without a checkpoint log records nothing
	PlainTracker                // the backend's tracker (monitor.New)
	// LazyTracker is a monitor.Lazy (monitor.NewLazy) where this node can
	// have one, else the backend's tracker; the start-up's lazy phase then
	// tells the master which it got.
	LazyTracker
)

// Runtime is what the runtime brings to the plan besides the configuration.
type Runtime struct {
	// EveryRegionLast: the translator proved that every region of the
	// program is its last (cape.EveryRegionLast).
	EveryRegionLast bool
	ArenaSize       int // the arena's bytes
	MaxJoiners      int // how many nodes a job with a checkpoint log admits
}

// Plan is what a node sets up at Init, decided from its configuration.
type Plan struct {
	Role Role
	Rank int
	Name string // "master" or "node N"

	// DropStdout: a slave started by a scheduler discards its standard
	// output itself (only the master's output is the job's; cape run drops
	// the slaves' own).
	DropStdout bool
	// CaptureOutput: the regions' standard output is captured, to be
	// written in iteration order (several nodes, or --verify's re-run).
	CaptureOutput bool
	Stats         bool // --stats
	Verify        bool // the master under --verify re-runs each region sequentially
	// WatchLifeline: the launcher holds the lifeline; its end ends the node.
	WatchLifeline bool

	Monitor string  // the monitor backend's name, auto by default
	Tracker Tracker // which monitor to create
	// MonitorNotices: the monitor's notices are printed (the master's
	// only: every node's monitor would say the same).
	MonitorNotices bool
	Checkpoints    exchange.Mode // with a tracker: the checkpoint mode (else nil)

	Compression delta.Compression // as asked; see SendCompression
	// Lazy: the job wants lazy transfer and may use it; the start-up
	// agrees on it (PhaseLazy).
	Lazy bool
	// LazyAsked: lazy transfer was asked for by name (--transfer lazy),
	// so a node that falls back to eager says so.
	LazyAsked bool
	// Homes: the job wants distributed homes (--transfer homes), a form of
	// lazy transfer where every node, the master included, serves the
	// pages it wrote. Under auto a checkpointed job keeps lazy transfer
	// (its log holds every region's bytes); asked for by name, homes
	// keep a log of images (durable's images.go).
	Homes bool

	// Transport is the job's connection's configuration, without its
	// Notice (multi-node jobs).
	Transport transport.Config
	// Startup is the start-up's phases this node follows after connecting,
	// in order (master and slaves; none for a joining node).
	Startup []wire.Phase
	// Admission: the master of a job with a checkpoint log admits joining
	// nodes on its port once the start-up is done.
	Admission bool
	// WatchMaster: a slave's lost connection to the master ends the node
	// even while its program is busy elsewhere.
	WatchMaster bool
}

// New returns the plan of a node with configuration cfg. It checks the
// settings that a multi-node job uses: an unknown compression or transfer
// mode is an error.
func New(cfg *nodeenv.Config, rt Runtime) (*Plan, error) {
	p := &Plan{Rank: cfg.Rank, Name: Name(cfg.Rank), Stats: cfg.Stats, Verify: cfg.Verify && cfg.Rank == 0,
		DropStdout: cfg.Scheduler != "" && cfg.Rank > 0, Monitor: orDefault(cfg.Monitor, monitor.BackendAuto),
		MonitorNotices: cfg.Rank == 0, LazyAsked: cfg.Transfer == lazy.Lazy || cfg.Transfer == lazy.Homes}
	p.CaptureOutput = cfg.Size > 1 || p.Verify
	if cfg.Size == 1 {
		p.Role = Single
		if cfg.Checkpoint != "" {
			// A single node logging checkpoints needs the deltas a
			// multi-node job has.
			p.Tracker, p.Checkpoints = PlainTracker, exchange.Incremental{}
		}
		return p, nil
	}
	var err error
	if p.Compression, err = delta.ParseCompression(orDefault(cfg.Compress, "auto")); err != nil {
		return nil, err
	}
	if p.Lazy, err = lazy.Want(lazy.Job{Transfer: cfg.Transfer, Size: cfg.Size, Verify: cfg.Verify,
		Restart: cfg.Restart, EveryRegionLast: rt.EveryRegionLast}); err != nil {
		// The text the error has always had: the transfer mode was
		// checked while the monitor was created.
		return nil, fmt.Errorf("monitor %q: %s=%w", p.Monitor, nodeenv.Transfer, err)
	}
	p.Role = roleOf(cfg)
	p.WatchLifeline = cfg.Lifeline != nil
	p.Tracker = PlainTracker
	// Auto is distributed homes where losses may be survived (each slave's
	// pages are then replicated, so the master can still read them after
	// a slave's loss), else lazy transfer, which keeps every byte at the
	// master: with --max-lost 0 a slave lost after the last region would
	// otherwise stop the master halfway through its output. A checkpoint
	// log needs every byte at the master too.
	// Asked for by name, distributed homes keep a checkpoint log of
	// images only (the master does not hold the regions' bytes).
	p.Homes = p.Lazy && (cfg.Transfer == lazy.Homes || cfg.Transfer == lazy.Auto && cfg.MaxLost != 0 && cfg.Checkpoint == "")
	// Under homes every node serves the pages it wrote and fetches the
	// others'; under lazy transfer the master keeps its plain tracker: it
	// serves pages from snapshots, not from its twins.
	if (p.Homes || p.Lazy && cfg.Rank > 0) && (p.Monitor == monitor.BackendAuto || p.Monitor == monitor.BackendUffd) {
		p.Tracker = LazyTracker
	}
	p.Checkpoints = exchange.NewMode(p.Monitor == monitor.BackendComplete, cfg.Rank != 0)
	p.Transport = transportConfig(cfg, rt)
	if p.Role != Joiner {
		p.Startup = wire.Phases(wire.Setup{Lazy: p.Lazy, Restart: cfg.Restart})
	}
	p.Admission = p.Role == Master && cfg.Checkpoint != ""
	p.WatchMaster = p.Role == Slave
	return p, nil
}

func roleOf(cfg *nodeenv.Config) Role {
	switch {
	case cfg.JoinDir != "":
		return Joiner
	case cfg.Rank == 0:
		return Master
	}
	return Slave
}

// transportConfig is the job's connection's configuration.
func transportConfig(cfg *nodeenv.Config, rt Runtime) transport.Config {
	c := transport.Config{Token: cfg.Token, JobID: cfg.Job, Size: cfg.Size, Broadcast: cfg.Broadcast,
		// Losses may be survived: a relayed broadcast heals around a
		// lost relay node (the merged delta's buffer is not reused).
		HealRelay: cfg.MaxLost != 0,
		// The largest message is a delta of the whole arena: its payload,
		// a run table that cannot exceed it, and small headers.
		MaxFrame: max(transport.DefaultMaxFrame, 2*rt.ArenaSize+1<<20)}
	if d := cfg.PeerTimeout; d > 0 {
		c.PeerTimeout = d
		c.HandshakeTimeout = transport.JoinTimeout(d)
	}
	if cfg.Checkpoint != "" {
		// A checkpointed job admits joining nodes.
		c.MaxJoin = rt.MaxJoiners
	}
	return c
}

// Name is how the runtime's messages name the node of rank rank.
func Name(rank int) string {
	if rank == 0 {
		return "master"
	}
	return fmt.Sprintf("node %d", rank)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
