package cape

// Lazy transfer (--transfer lazy, docs/transfer.md) is package
// internal/lazy's: write notices instead of every changed byte, pages
// fetched on first touch by a slave's pager helper from the master's page
// server, pushes of what a slave read last time. This file is the glue:
// the decision, the trackers, and the set-up messages.
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

	"github.com/cape-go/cape/cape/internal/lazy"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// wantLazy reports whether the job asks for lazy transfer and may use it:
// --verify, restarts and single nodes keep the eager path.
func wantLazy(n *node) (bool, error) {
	want, err := lazy.Want(lazy.Job{Transfer: n.cfg.Transfer, Size: n.size, Verify: n.cfg.Verify,
		Restart: n.cfg.Restart, EveryRegionLast: n.everyRegionLast})
	if err != nil {
		return false, fmt.Errorf("%s=%w", nodeenv.Transfer, err)
	}
	return want, nil
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
		if n.cfg.Transfer == lazy.Lazy {
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
// if on, opens the page server, which accepts the helpers in the
// background.
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
		if n.cfg.Transfer == lazy.Lazy && len(unable) > 0 {
			notice("cape: lazy transfer unavailable on node(s) %v: the job uses eager transfer\n", unable)
		}
		return false, nil
	}
	n.lazyM = lazy.NewMaster(lazy.MasterConfig{Arena: n.arena.Bytes(), PageSize: n.arena.PageSize(), Size: n.size,
		Tracker: n.tracker, Listener: pln, Job: n.cfg.Job, Token: n.cfg.Token, PeerTimeout: n.cfg.PeerTimeout})
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
	ls, err := lazy.StartSlave(pager.Config{Rank: n.rank, Size: n.size, Job: n.cfg.Job, Token: n.cfg.Token,
		Master: net.JoinHostPort(host, strconv.Itoa(port)), PeerTimeout: n.cfg.PeerTimeout,
		Base: uint64(arena.Base), ArenaSize: n.arena.Size(), PageSize: n.arena.PageSize()}, lz)
	if err != nil {
		return false, fmt.Errorf("lazy transfer: %w", err)
	}
	n.lazyS = ls
	go n.watchPager(ls)
	return true, nil
}

// watchPager ends the node when its helper ends before Finalize: a page
// it lacks could never arrive.
func (n *node) watchPager(ls *lazy.Slave) {
	<-ls.Done()
	if n.closing.Load() {
		return
	}
	exit(1, fmt.Sprintf("the lazy page helper ended: %v", ls.Err()))
}

// closeLazy stops the page server or the helper (Finalize).
func (n *node) closeLazy() error {
	var errs []error
	if n.lazyM != nil {
		errs = append(errs, n.lazyM.Close())
	}
	if n.lazyS != nil {
		errs = append(errs, n.lazyS.Close())
	}
	return errors.Join(errs...)
}
