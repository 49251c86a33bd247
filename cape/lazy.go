package cape

// The runtime's side of lazy transfer (--transfer lazy, docs/transfer.md):
// the set-up's messages and services, whose sequence package lazy's doc
// gives. Whether the job wants lazy transfer, which tracker each node
// creates (tracker.go) and what the answers mean are package setup's
// decisions. Neither side waits for the helpers to connect: the master
// accepts them in the background, and a slave waits for its own before it
// invalidates its first page, which is also when its memory starts to
// fault to the helper (monitor.LazyOptions.Missing). The default transfer
// (auto) is eager from the start for a program whose every region is its
// last (EveryRegionLast): its slaves are sent no bytes (Region.Last).

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/cape-go/cape/cape/internal/lazy"
	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// setUpLazy agrees on lazy transfer with the other nodes, once the
// transport is up (wire.PhaseLazy), and starts the page server (master, on
// its port) or the pager helper (slave). When the job does not use it, a
// slave that created a monitor.Lazy replaces it with the backend's plain
// tracker.
func (n *node) setUpLazy() error {
	if n.plan.Homes {
		return n.setUpHomes()
	}
	if n.rank == 0 {
		return n.agreeLazyMaster()
	}
	lz, capable := n.tracker.(monitor.Lazy)
	on, port, err := n.agreeLazySlave(capable)
	if err != nil {
		return err
	}
	step, err := setup.SlaveLazy(capable, on)
	if err != nil {
		return fmt.Errorf("lazy transfer set-up: %w", err)
	}
	switch step {
	case setup.StartHelper:
		return n.startPager(lz, port)
	case setup.ReplaceTracker:
		return n.replaceLazyTracker()
	}
	return nil
}

// agreeLazyMaster collects the slaves' answers, decides (setup's
// AgreeLazy), tells them and, if on, opens the page server, which accepts
// the helpers in the background.
func (n *node) agreeLazyMaster() error {
	ranks, capable, err := n.collectHellos(func(_ int, p []byte) (bool, error) { return wire.ParseLazyHello(p) })
	if err != nil {
		return fmt.Errorf("lazy transfer set-up: %w", err)
	}
	a := n.plan.AgreeLazy(ranks, capable)
	var pln net.Listener
	port := 0
	if a.On {
		var err error
		if pln, port, err = n.listenBeside(pager.JobID(n.cfg.Job)); err != nil {
			return fmt.Errorf("lazy transfer: open the page server: %w", err)
		}
	}
	if err := n.sendEach(wire.LazyInfo, wire.LazyInfoPayload(a.On, port)); err != nil {
		return errors.Join(fmt.Errorf("lazy transfer set-up: %w", err), closeListener(pln))
	}
	if a.Notice != "" {
		notice("cape: %s\n", a.Notice)
	}
	if !a.On {
		return nil
	}
	n.lazyM = lazy.NewMaster(lazy.MasterConfig{Arena: n.arena.Bytes(), PageSize: n.arena.PageSize(), Size: n.size,
		Tracker: n.tracker, Listener: pln, Job: n.cfg.Job, Token: n.cfg.Token, PeerTimeout: n.cfg.PeerTimeout})
	return nil
}

func closeListener(ln net.Listener) error {
	if ln == nil {
		return nil
	}
	return ln.Close()
}

// agreeLazySlave tells the master whether this node can serve lazy
// transfer and returns its answer: on, and the page server's port.
func (n *node) agreeLazySlave(capable bool) (bool, int, error) {
	if err := n.slave.Send(transport.Message{Kind: wire.LazyHello, Payload: wire.LazyHelloPayload(capable)}); err != nil {
		return false, 0, fmt.Errorf("lazy transfer set-up: %w", err)
	}
	msg, err := n.slave.Recv()
	if err == nil {
		err = fromMaster(msg, wire.LazyInfo, 0)
	}
	if err != nil {
		return false, 0, fmt.Errorf("lazy transfer set-up: %w", err)
	}
	return wire.ParseLazyInfo(msg.Payload)
}

// startPager starts the pager helper, which fetches pages from the
// master's page server on port.
func (n *node) startPager(lz monitor.Lazy, port int) error {
	host, _, err := net.SplitHostPort(n.cfg.Master)
	if err != nil {
		return fmt.Errorf("lazy transfer: master address %q: %w", n.cfg.Master, err)
	}
	ls, err := lazy.StartSlave(pager.Config{Rank: n.rank, Size: n.size, Job: n.cfg.Job, Token: n.cfg.Token,
		Master: net.JoinHostPort(host, strconv.Itoa(port)), PeerTimeout: n.cfg.PeerTimeout,
		Base: uint64(arena.Base), ArenaSize: n.arena.Size(), PageSize: n.arena.PageSize()}, lz)
	if err != nil {
		return fmt.Errorf("lazy transfer: %w", err)
	}
	n.lazyS = ls
	if n.plan.Stats {
		notice("cape: %s\n", n.plan.LazyMode(lz.UserModeOnly()))
	}
	go n.watchPager(ls)
	return nil
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
	errs = append(errs, n.closeHomes())
	return errors.Join(errs...)
}
