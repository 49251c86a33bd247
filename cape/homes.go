package cape

// The runtime's side of distributed homes (--transfer homes,
// docs/homes.md): set-up and the node's state. Every node, the master
// included, has a monitor.Lazy tracker, a page server (package
// pageserver) for the pages it holds, and a pager helper that fetches the
// pages it lacks from their holders. The exchange is homes_exchange.go.

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/cape-go/cape/cape/internal/pageserver"
	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// homesNode is a node's state under distributed homes.
type homesNode struct {
	tr  monitor.Lazy
	h   *pager.Helper
	srv *pageserver.Server
	ps  int
	// share, by region name: the pages this node was asked to send its
	// runs of (collect) in an earlier instance; it sends them with its
	// notice from then on.
	share map[string][]int
	// doneSeen: the master's end of the job arrived (Finalize need not
	// wait for it).
	doneSeen bool

	// Replication (homes_loss.go), where losses may be survived.
	replicate    bool
	self         bool         // self replicas: each slave keeps its own (one host)
	lost         bool         // this node was declared lost: its helper serves on
	buddy        int          // the node keeping this one's replica (itself with self replicas), or -1
	replicatedTo int          // the buddy this node last replicated to, or -1
	ranges       [][2]int     // scratch: the pages to replicate
	adopted      map[int]bool // the master's: lost nodes whose pages it took over
	live         []int        // the live set replicas were last set for

	// written: the pages this node wrote in the region (as the tracker
	// reports them: written, not necessarily changed), as ranges; shared:
	// those it sends its runs of with its notice.
	written []wire.PageRange
	shared  []int
	pushes  []wire.Push // the pages this node pushes with its notice
	pushed  []wire.Push // the pages pushed to this node in the release
	// Scratch space, reused from one region to the next.
	homes   []wire.Home
	inval   []int
	pages   []int
	sub     delta.Delta
	in      delta.Delta
	payload []byte
	m       homesMerge    // the master's
	keep    []keptPayload // the master's: runs payloads read in this exchange
}

// keptPayload is a received payload to give back to rank's connection.
type keptPayload struct {
	rank int
	p    []byte
}

// setUpHomes agrees on distributed homes with the other nodes, once the
// transport is up (the lazy phase of the start-up): each node that can
// take lazy pages starts its pager helper, which also serves its pages and
// listens; each slave tells the master whether it can and its helper's
// port; the master answers with every server's address, or off.
func (n *node) setUpHomes() error {
	lz, capable := n.tracker.(monitor.Lazy)
	var h *pager.Helper
	port := 0
	if capable {
		var err error
		if h, port, err = n.startServingHelper(lz); err != nil {
			return fmt.Errorf("distributed homes: %w", err)
		}
	}
	var err error
	if n.rank == 0 {
		err = n.agreeHomesMaster(lz, h, port)
	} else {
		var info wire.HomesInfo
		if info, err = n.helloHomes(capable, port); err == nil {
			err = n.actOnHomes(lz, h, capable, info)
		}
	}
	if err != nil && h != nil && n.homes == nil {
		err = errors.Join(err, h.Close())
	}
	return err
}

// startServingHelper starts the node's pager helper with its page server,
// listening on the host the other nodes reach this node at, and returns
// it with its port.
func (n *node) startServingHelper(lz monitor.Lazy) (*pager.Helper, int, error) {
	addr := n.listenAddr
	if n.slave != nil {
		addr = n.slave.LocalAddr()
	}
	host := ""
	if a, ok := addr.(*net.TCPAddr); ok && !a.IP.IsUnspecified() {
		host = a.IP.String()
	}
	h, err := pager.Start(pager.Config{Rank: n.rank, Size: n.size, Job: n.cfg.Job, Token: n.cfg.Token,
		PeerTimeout: n.cfg.PeerTimeout, Base: uint64(arena.Base), ArenaSize: n.arena.Size(),
		PageSize: n.arena.PageSize(), Serve: true, ServeHost: host, UffdFD: lz.UffdFD(), TwinFD: lz.TwinFD()})
	if err != nil {
		return nil, 0, err
	}
	port, err := h.Port()
	if err != nil {
		return nil, 0, errors.Join(err, h.Close())
	}
	return h, port, nil
}

// helloHomes sends the slave's answer and returns the master's.
func (n *node) helloHomes(capable bool, port int) (wire.HomesInfo, error) {
	var info wire.HomesInfo
	if err := n.slave.Send(transport.Message{Kind: wire.LazyHello, Payload: wire.HomesHelloPayload(capable, port)}); err != nil {
		return info, fmt.Errorf("distributed homes set-up: %w", err)
	}
	msg, err := n.slave.Recv()
	if err == nil {
		err = fromMaster(msg, wire.LazyInfo, 0)
	}
	if err == nil {
		info, err = wire.ParseHomesInfo(msg.Payload, n.size)
	}
	if err != nil {
		return info, fmt.Errorf("distributed homes set-up: %w", err)
	}
	if info.On {
		host, _, err := net.SplitHostPort(n.cfg.Master)
		if err != nil {
			return info, fmt.Errorf("distributed homes: master address %q: %w", n.cfg.Master, err)
		}
		info.Servers[0] = net.JoinHostPort(host, strings.TrimPrefix(info.Servers[0], ":"))
	}
	return info, nil
}

// actOnHomes is a slave's step once the master answered.
func (n *node) actOnHomes(lz monitor.Lazy, h *pager.Helper, capable bool, info wire.HomesInfo) error {
	step, err := setup.SlaveLazy(capable, info.On)
	if err != nil {
		return fmt.Errorf("distributed homes set-up: %w", err)
	}
	switch step {
	case setup.StartHelper:
		if err := n.startHomes(lz, h, info.Servers, info.SelfReplicas); err != nil {
			return err
		}
		return n.homesBarrier()
	case setup.ReplaceTracker:
		return n.replaceLazyTracker(h)
	}
	return nil
}

// agreeHomesMaster collects the slaves' answers and ports, decides and
// tells them, and connects the master's own helper (h, on port; nil where
// the master cannot take lazy pages).
func (n *node) agreeHomesMaster(lz monitor.Lazy, h *pager.Helper, port int) error {
	servers := make([]string, n.size)
	ranks, capable, err := n.collectHellos(func(rank int, payload []byte) (bool, error) {
		ok, p, err := wire.ParseHomesHello(payload)
		host, _, _ := net.SplitHostPort(n.master.PeerAddr(rank))
		servers[rank] = net.JoinHostPort(host, strconv.Itoa(p))
		return ok, err
	})
	if err != nil {
		return fmt.Errorf("distributed homes set-up: %w", err)
	}
	a := n.plan.AgreeLazy(append(ranks, 0), append(capable, h != nil))
	self := a.On && n.cfg.MaxLost != 0 && n.cfg.Replicas != "buddy" && oneHost(servers[1:])
	servers[0] = ":" + strconv.Itoa(port)
	if err := n.sendEach(wire.LazyInfo, wire.HomesInfoPayload(wire.HomesInfo{On: a.On, SelfReplicas: self, Servers: servers})); err != nil {
		return fmt.Errorf("distributed homes set-up: %w", err)
	}
	if a.Notice != "" {
		notice("cape: %s\n", a.Notice)
	}
	if !a.On {
		if h == nil {
			return nil
		}
		return n.replaceLazyTracker(h)
	}
	servers[0] = ""
	if err := n.startHomes(lz, h, servers, self); err != nil {
		return err
	}
	n.imagesOnly()
	return n.homesBarrier()
}

// homesBarrier holds every node at the end of the distributed homes
// set-up until every node's helper is connected to every page server (a
// slave says so once its Connect returned; the master, once it heard every
// slave, lets them go). Without it a node could start its first region,
// and be lost in it, while another's helper still dialled its server: that
// helper would retry a server that is gone, and the servers waiting for it
// would give up serving anyone.
func (n *node) homesBarrier() error {
	if n.slave != nil {
		if err := n.slave.Send(transport.Message{Kind: wire.HomesReady}); err != nil {
			return fmt.Errorf("distributed homes set-up: %w", err)
		}
		msg, err := n.slave.Recv()
		if err == nil {
			err = fromMaster(msg, wire.HomesGo, 0)
		}
		if err != nil {
			return fmt.Errorf("distributed homes set-up: wait for every node's page helper: %w", err)
		}
		return nil
	}
	for rank := 1; rank < n.size; rank++ {
		msg, err := n.master.Recv(rank)
		if err == nil && (msg.Kind != wire.HomesReady || len(msg.Payload) != 0) {
			err = fmt.Errorf("node %d sent message kind %d (%d bytes), want that its page helper is connected", rank, msg.Kind, len(msg.Payload))
		}
		if err != nil {
			return fmt.Errorf("distributed homes set-up: %w", err)
		}
		n.master.Release(rank, msg.Payload)
	}
	if err := n.sendEach(wire.HomesGo, nil); err != nil {
		return fmt.Errorf("distributed homes set-up: %w", err)
	}
	return nil
}

// startHomes connects the node's helper to every other node's page server
// and waits for it; from then on the node is under distributed homes. With
// self replicas (every node on one host) a slave's helper keeps its
// replica and serves on if the node is lost (homes_loss.go).
func (n *node) startHomes(lz monitor.Lazy, h *pager.Helper, servers []string, self bool) error {
	if err := h.Connect(servers); err != nil {
		return fmt.Errorf("distributed homes: %w", err)
	}
	replicate := n.cfg.MaxLost != 0
	if self && replicate && n.rank > 0 {
		if err := h.KeepServing(os.Getppid()); err != nil {
			return fmt.Errorf("distributed homes: %w", err)
		}
	}
	ps := n.arena.PageSize()
	n.homes = &homesNode{tr: lz, h: h, srv: pageserver.New(h, n.rank, ps), ps: ps, share: map[string][]int{},
		replicate: replicate, self: self && replicate, buddy: -1, replicatedTo: -1, adopted: map[int]bool{}}
	if n.homes.self && n.rank > 0 {
		n.homes.srv.ServeFromReplica()
		// The twin of a page the node kept in its own replica is the
		// replica's copy as of the region's entry (n.seq is the region's
		// own from Begin to the next Begin, and the tracker reads twins
		// from Start to the end of the exchange): the node holds no
		// other (monitor.Lazy.TwinsFrom).
		lz.TwinsFrom(func(p int) []byte { return h.OwnPage(p, n.seq-1) })
	} else if snap := h.Snapshot(); len(snap) > 0 {
		// Else the twin of a page the node holds is the snapshot its
		// helper serves from, which the node rewrites with the pages it
		// holds at each release (pageserver.Server.Update), after its
		// twins' last read (a region's exchange) and before the next Start.
		lz.TwinsFrom(func(p int) []byte { return snap[p*ps : (p+1)*ps] })
		n.homes.srv.OnKept(lz.Kept)
	}
	if err := n.setReplicas(); err != nil {
		return err
	}
	lz.SetAbsent(h.Invalid)
	// The node reads the twins of the pages it wrote only (its notice's
	// shared runs, a collect, the master's merge base): where a region's
	// writes are bounded, the others need none.
	lz.TwinWritesOnly()
	if n.plan.Stats {
		notice("cape: %s\n", n.plan.LazyMode(lz.UserModeOnly()))
	}
	go n.watchHomes(h)
	return nil
}

// watchHomes ends the node when its helper ends before Finalize.
func (n *node) watchHomes(h *pager.Helper) {
	<-h.Done()
	if n.closing.Load() {
		return
	}
	exit(1, fmt.Sprintf("the page helper ended: %v", h.Err()))
}

// commitKind is the kind of a slave's end-of-region message: a notice
// under distributed homes, else a delta.
func (n *node) commitKind() uint8 {
	if n.homes != nil {
		return wire.Notice
	}
	return wire.Delta
}

// awaitMasterEnd keeps a slave's page server up until the master's program
// has ended (its end-of-job message, or its connection's end): the master's
// sequential code may still need the pages this node holds.
func (n *node) awaitMasterEnd() {
	hs := n.homes
	if hs == nil || hs.doneSeen || n.slave == nil {
		return
	}
	hs.doneSeen = true
	// The program reads no more input: leave the input stream now, which
	// the master reads no further ahead of than its slowest reader.
	_ = n.closeStdin()
	if err := n.slave.Send(transport.Message{Kind: wire.Finished, Seq: n.seq}); err != nil {
		return
	}
	for {
		msg, err := n.slave.Recv()
		if err != nil || msg.Kind == wire.Done || msg.Kind == wire.Abort || msg.Kind == wire.Leave {
			return
		}
		n.slave.Release(msg.Payload)
	}
}

// awaitSlavesEnd waits, on the master, until every live slave's program
// has ended (or its connection has), once: under distributed homes at
// Finalize, since until then one node may still fetch pages from another,
// which must not leave before; and in any job once no region can run any
// more (regionsDone), since a slave still runs the sequential code between
// its last region and its leaving, which may write the files the master's
// code after it reads (a file every node rewrote in the loop of regions was
// read empty). An error (a slave that ran a region the master did not) is
// kept for Finalize to report.
func (n *node) awaitSlavesEnd() error {
	if n.master == nil || n.homes == nil && !n.regionsOver || n.cur != nil {
		// Inside a region (os.Exit or log.Fatal in an iteration) the
		// slaves wait for its end, which never comes: their programs
		// cannot end first, and the master's needs no page any more.
		return nil
	}
	if !n.slavesEnded {
		n.slavesEnded = true
		n.slavesEndErr = n.awaitFinished()
	}
	return n.slavesEndErr
}

// endRegions ends the job's regions where no region can run any more
// (RegionsDone, or the end of the program's last region): every node
// releases what only regions use (regionsDone), and a slave tells the
// master that its program is done (under homes keeping its pages served
// until the master's end) and leaves.
func (n *node) endRegions() {
	n.regionsDone()
	if n.rank == 0 {
		return
	}
	if n.homes == nil {
		_ = n.slave.Send(transport.Message{Kind: wire.Finished, Seq: n.seq})
	}
	n.awaitMasterEnd()
	fail(ErrJobDone)
}

// awaitFinished is awaitSlavesEnd's wait, once.
func (n *node) awaitFinished() error {
	if ro := n.rost; ro != nil {
		close(ro.finishing)
	}
	for _, rank := range n.members.Live[1:] {
		if ro := n.rost; ro != nil && rank < len(ro.runs) && ro.runs[rank] != nil {
			if err := ro.awaitFinished(rank); err != nil {
				return err
			}
			continue
		}
		for {
			msg, err := n.master.Recv(rank)
			if err != nil || msg.Kind == wire.Finished {
				break
			}
			n.master.Release(rank, msg.Payload)
			if msg.Seq > n.seq {
				return &otherPath{rank: rank, seq: msg.Seq}
			}
		}
	}
	return nil
}

// regionsDone releases, once no region can run any more (RegionsDone, or
// the end of the program's last region), what only regions read: the
// twins, the tracker's and those the helper would write for the pages it
// installs from then on; and, on the master once every slave's program
// has ended (no node fetches its pages after that), the snapshot its
// helper serves them from. The master's code that follows (typically the
// output of the whole result) then holds what it reads and not twice its
// share. A failure to release costs memory only: it is reported, and the
// program goes on.
func (n *node) regionsDone() {
	if n.regionsOver {
		return
	}
	n.regionsOver = true
	if n.homes == nil {
		if n.master != nil {
			n.dropLost()           // as Finalize: the lost slaves first, whose ends are known
			_ = n.awaitSlavesEnd() // Finalize reports it
		}
		return
	}
	if err := n.dropRegionState(); err != nil {
		notice("cape: node %d: after the last region: %v\n", n.rank, err)
	}
}

// dropRegionState is regionsDone's work; it stops at the first failure.
func (n *node) dropRegionState() error {
	hs := n.homes
	if err := hs.h.DropTwins(); err != nil {
		return err
	}
	if err := hs.tr.DropTwins(); err != nil {
		return err
	}
	if n.master == nil {
		return nil
	}
	// As Finalize: the lost slaves first, whose ends are known.
	n.dropLost()
	if n.awaitSlavesEnd() != nil {
		return nil // Finalize reports it
	}
	return hs.h.DropSnapshot()
}

// closeHomes stops the node's page server and helper (Finalize).
func (n *node) closeHomes() error {
	hs := n.homes
	if hs == nil {
		return nil
	}
	if hs.lost && hs.self {
		return hs.h.Abandon()
	}
	return hs.h.Close()
}
