package cape

import (
	"errors"
	"strings"
	"testing"

	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/monitor"
)

// TestNewTrackerFollowsPlan checks that newTracker creates what the plan
// names: nothing (and no checkpoint mode) without a tracker, and an
// unknown backend's error, with the backend's name as context.
func TestNewTrackerFollowsPlan(t *testing.T) {
	a, err := sharedArena()
	if err != nil {
		t.Fatal(err)
	}
	n := &node{arena: a, plan: setup.Plan{Tracker: setup.NoTracker, Monitor: "compare"}}
	if err := n.newTracker(); err != nil || n.tracker != nil || n.ckpt != nil {
		t.Errorf("no tracker: %v, tracker %v, mode %v", err, n.tracker, n.ckpt)
	}
	n = &node{arena: a, plan: setup.Plan{Tracker: setup.PlainTracker, Monitor: "nosuch", Checkpoints: exchange.Incremental{}}}
	err = n.newTracker()
	if !errors.Is(err, monitor.ErrUnknownBackend) || !strings.HasPrefix(err.Error(), `monitor "nosuch": `) || n.tracker != nil {
		t.Errorf("unknown backend: %v, tracker %v", err, n.tracker)
	}
}
