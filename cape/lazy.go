package cape

// Lazy transfer (--transfer lazy, DESIGN "Lazy transfer for
// communication-bound loops"): after a region the master sends each slave
// write notices (the pages others changed) instead of every changed byte,
// plus, eagerly, the changed pages that slave fetched after the previous
// instance of the same region. A slave invalidates the noticed pages; its
// pager helper (internal/pager), a separate process holding the slave's
// userfaultfd, fetches a page from the master's page server on first
// access. The master is the home of every page: it injects every region's
// merged delta, so it always holds the committed state, and it serves a
// page as of the last exchange from a snapshot it takes then of the pages
// slaves lack.
//
// Set-up, when the nodes join: a slave whose tracker is monitor.Lazy says
// so (lazyHello); if every slave can, the master opens its
// page server and tells the slaves (lazyInfo), and each slave starts its
// helper. Neither waits for the helpers to connect: the master accepts
// them in the background, and a slave waits for its own before it
// invalidates its first page, which is also when its memory starts to
// fault to the helper (monitor.LazyOptions.Missing). Otherwise every node
// goes on with a plain tracker and eager transfer. The default transfer
// (auto) is eager from the start for a program whose every region is its
// last (EveryRegionLast): its slaves are sent no bytes (Region.Last).

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// Transfer modes (nodeenv.Transfer, cape run --transfer).
const (
	transferEager = "eager"
	transferLazy  = "lazy"
	transferAuto  = "auto"
)

// wantLazy reports whether the job asks for lazy transfer and may use it:
// --verify and single nodes keep the eager path.
func wantLazy(n *node) (bool, error) {
	switch t := n.cfg.Transfer; t {
	case "", transferEager:
		return false, nil
	case transferLazy, transferAuto:
		// The durable log (durable.go) logs the merged delta the master
		// has in either exchange; a restart replays a region by sending
		// it whole, so a restarted job (and --verify) keeps the eager
		// exchange. A program whose every region is its last sends slaves no bytes
		// (Region.Last): auto does not pay for a helper it cannot use.
		if t == transferAuto && n.everyRegionLast {
			return false, nil
		}
		return n.size > 1 && !n.cfg.Verify && !n.cfg.Restart, nil
	default:
		return false, fmt.Errorf("%s=%q: want eager, lazy or auto", nodeenv.Transfer, t)
	}
}

// newTracker creates the node's tracker: a monitor.Lazy when the job wants
// lazy transfer and the backend is uffd (or auto) and this node can have
// one, else the backend's tracker.
func (n *node) newTracker(backend string, opts monitor.Options) (monitor.Tracker, error) {
	want, err := wantLazy(n)
	if err != nil {
		return nil, err
	}
	if want && n.rank > 0 && (backend == monitor.BackendAuto || backend == monitor.BackendUffd) {
		t, err := monitor.NewLazy(n.arena.Bytes(), opts, monitor.LazyOptions{Missing: n.rank > 0})
		if err == nil {
			return t, nil
		}
		if n.cfg.Transfer == transferLazy {
			notice("cape: %s: lazy transfer unavailable, using eager: %v\n", n.name, err)
		}
	}
	return monitor.New(backend, n.arena.Bytes(), opts)
}

// setUpLazy agrees on lazy transfer with the other nodes, once the
// transport is up, and starts the page server (master, on its port) or the
// pager helper (slave). When the job does not use it, a slave that
// created a monitor.Lazy replaces it with the backend's plain tracker.
func (n *node) setUpLazy(backend string, opts monitor.Options) error {
	want, err := wantLazy(n)
	if err != nil || !want {
		return err
	}
	if n.rank == 0 {
		// The master keeps its plain tracker: it serves pages from
		// snapshots, not from its twins.
		_, err := n.agreeLazyMaster()
		return err
	}
	lz, capable := n.tracker.(monitor.Lazy)
	on, err := n.agreeLazySlave(capable, lz)
	if err != nil || on || !capable {
		return err
	}
	// Lazy transfer is off: the plain tracker keeps the eager path as it
	// is (adaptive monitor; no missing-page registration without a helper).
	if err := n.tracker.Close(); err != nil {
		return fmt.Errorf("close the lazy tracker: %w", err)
	}
	if n.tracker, err = monitor.New(backend, n.arena.Bytes(), opts); err != nil {
		return fmt.Errorf("monitor %q: %w", backend, err)
	}
	return nil
}

// agreeLazyMaster collects the slaves' answers, decides, tells them and,
// if on, opens the page server and waits for every helper.
func (n *node) agreeLazyMaster() (bool, error) {
	on := true
	var unable []int
	for rank := 1; rank < n.size; rank++ {
		msg, err := n.master.Recv(rank)
		if err != nil {
			return false, fmt.Errorf("lazy transfer set-up: %w", err)
		}
		capable, perr := wire.ParseLazyHello(msg.Payload)
		if msg.Kind != kindLazyHello || perr != nil {
			return false, fmt.Errorf("lazy transfer set-up: node %d sent message kind %d (%d bytes), want its answer", rank, msg.Kind, len(msg.Payload))
		}
		if !capable {
			on = false
			unable = append(unable, rank)
		}
	}
	var pln net.Listener
	port := 0
	if on {
		var err error
		if pln, port, err = n.listenBeside(pager.JobID(n.cfg.Job)); err != nil {
			return false, fmt.Errorf("lazy transfer: open the page server: %w", err)
		}
	}
	if err := n.sendEach(kindLazyInfo, wire.LazyInfoPayload(on, port)); err != nil {
		return false, errors.Join(fmt.Errorf("lazy transfer set-up: %w", err), closeListener(pln))
	}
	if !on {
		if n.cfg.Transfer == transferLazy && len(unable) > 0 {
			notice("cape: lazy transfer unavailable on node(s) %v: the job uses eager transfer\n", unable)
		}
		return false, nil
	}
	n.lazyM = newLazyMaster(n, pln)
	return true, nil
}

func closeListener(ln net.Listener) error {
	if ln == nil {
		return nil
	}
	return ln.Close()
}

// agreeLazySlave answers the master and, if it decides for lazy transfer,
// starts the pager helper.
func (n *node) agreeLazySlave(capable bool, lz monitor.Lazy) (bool, error) {
	if err := n.slave.Send(transport.Message{Kind: kindLazyHello, Payload: wire.LazyHelloPayload(capable)}); err != nil {
		return false, fmt.Errorf("lazy transfer set-up: %w", err)
	}
	msg, err := n.slave.Recv()
	if err == nil {
		err = fromMaster(msg, kindLazyInfo, 0)
	}
	if err != nil {
		return false, fmt.Errorf("lazy transfer set-up: %w", err)
	}
	on, port, err := wire.ParseLazyInfo(msg.Payload)
	if err != nil || !on {
		return false, err
	}
	if !capable {
		return false, errors.New("lazy transfer set-up: the master turned lazy transfer on, but this node said it cannot")
	}
	host, _, err := net.SplitHostPort(n.cfg.Master)
	if err != nil {
		return false, fmt.Errorf("lazy transfer: master address %q: %w", n.cfg.Master, err)
	}
	mem := n.arena.Bytes()
	h, err := pager.Start(pager.Config{Rank: n.rank, Size: n.size, Job: n.cfg.Job, Token: n.cfg.Token,
		Master: net.JoinHostPort(host, strconv.Itoa(port)), PeerTimeout: n.cfg.PeerTimeout,
		Base: uint64(arena.Base), ArenaSize: len(mem), PageSize: n.arena.PageSize(),
		UffdFD: lz.UffdFD(), TwinFD: lz.TwinFD()})
	if err != nil {
		return false, fmt.Errorf("lazy transfer: %w", err)
	}
	// The helper's connection is awaited here, at set-up, not at the first
	// invalidation: the master's page server waits for every slave's
	// helper, so a node lost before its helper connected would keep it
	// waiting until the handshake timeout, and then fail every other
	// node's helper with it.
	if err := h.Ready(); err != nil {
		return false, errors.Join(fmt.Errorf("lazy transfer: %w", err), h.Close())
	}
	lz.SetAbsent(h.Invalid)
	n.lazyS = &lazySlave{tr: lz, h: h, ps: n.arena.PageSize()}
	go n.watchPager(h)
	return true, nil
}

// watchPager ends the node when its helper ends before Finalize: a page
// it lacks could never arrive.
func (n *node) watchPager(h *pager.Helper) {
	<-h.Done()
	if n.closing.Load() {
		return
	}
	exit(1, fmt.Sprintf("the lazy page helper ended: %v", h.Err()))
}

// closeLazy stops the page server or the helper (Finalize).
func (n *node) closeLazy() error {
	var errs []error
	if n.lazyM != nil {
		errs = append(errs, n.lazyM.close())
	}
	if n.lazyS != nil {
		errs = append(errs, n.lazyS.h.Close())
	}
	return errors.Join(errs...)
}
