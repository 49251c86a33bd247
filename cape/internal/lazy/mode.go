package lazy

import "fmt"

// Transfer modes (cape run --transfer).
const (
	Eager = "eager" // every slave receives every byte another node changed
	Lazy  = "lazy"  // write notices and pages on demand, or eager with a notice where unavailable
	Auto  = "auto"  // lazy where the host allows it, else eager, silently
	// Homes: pages stay at their writers, every node serves those it
	// holds (distributed homes, docs/homes.md); where a node cannot take
	// lazy pages, eager with a notice. It needs what lazy needs on every
	// node, the master included.
	Homes = "homes"
)

// Job is what decides whether a job may use lazy transfer.
type Job struct {
	Transfer string // the mode asked for: "", Eager, Lazy, Auto or Homes
	Size     int    // nodes
	// Verify, Restart: --verify re-runs regions on the master, and a
	// restart replays logged regions by sending them whole: both keep the
	// eager exchange.
	Verify, Restart bool
	// EveryRegionLast: every region of the program is its last, after
	// which slaves are sent no bytes, so Auto does not pay for helpers it
	// cannot use.
	EveryRegionLast bool
}

// Want reports whether j asks for lazy transfer and may use it. An
// unknown mode is an error naming it; the caller names the setting.
func Want(j Job) (bool, error) {
	switch j.Transfer {
	case "", Eager:
		return false, nil
	case Lazy, Auto, Homes:
		if j.Transfer == Auto && j.EveryRegionLast {
			return false, nil
		}
		return j.Size > 1 && !j.Verify && !j.Restart, nil
	default:
		return false, fmt.Errorf("%q: want eager, lazy, auto or homes", j.Transfer)
	}
}
