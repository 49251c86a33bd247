package cape

import (
	"fmt"

	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/monitor"
)

// newTracker creates the node's tracker and sets its checkpoint mode, as
// the plan says (setup.Tracker): none, the backend's, or a monitor.Lazy
// where this node can have one, else the backend's.
func (n *node) newTracker() error {
	p := &n.plan
	if p.Tracker == setup.NoTracker {
		return nil
	}
	n.ckpt = p.Checkpoints
	if p.Tracker == setup.LazyTracker {
		t, err := monitor.NewLazy(n.arena.Bytes(), n.monitorOptions(), p.LazyOptions())
		if err == nil {
			n.tracker = t
			// Its kernel accesses to invalidated pages fail: the
			// program's calls make them present first (present.go).
			setPresent(n.arena.Bytes(), n.arena.PageSize(), t.UserModeOnly())
			return nil
		}
		if s := p.LazyFallback(err); s != "" {
			notice("cape: %s\n", s)
		}
	}
	return n.newPlainTracker()
}

// newPlainTracker creates the backend's tracker.
func (n *node) newPlainTracker() error {
	setPresent(nil, 0, false)
	var err error
	if n.tracker, err = monitor.New(n.plan.Monitor, n.arena.Bytes(), n.monitorOptions()); err != nil {
		return fmt.Errorf("monitor %q: %w", n.plan.Monitor, err)
	}
	return nil
}

// monitorOptions are the options of this node's monitor: the master's
// prints its notices.
func (n *node) monitorOptions() monitor.Options {
	return monitor.Options{PageSize: n.arena.PageSize(), Notice: func(s string) {
		if n.plan.MonitorNotices {
			notice("cape: %s\n", s)
		}
	}}
}
