package roster

import (
	"slices"
	"time"
)

// Members is the job's membership: the live set, and on the master the cap
// on losses (--max-lost) and the losses so far. It does no I/O and reads no
// clock; the caller serialises its use (the cape driver holds its loss
// lock) and carries out what a loss entails (dropping the connection,
// telling the launcher).
//
// Every node splits a region by its place in the live set and the set's
// size, so the live set changes only at a region boundary, when the master
// announces it (Next) and the slaves adopt it.
type Members struct {
	Live []int // ranks that share the regions, ascending, the master first

	// Master only.
	MaxLost int           // --max-lost: negative means no cap
	Losses  []Loss        // in order
	Units   int           // units re-executed on the master, over the job
	Reexec  time.Duration // their time
	lost    []bool        // index rank: declared lost
}

// Loss is one lost node, for the final summary.
type Loss struct {
	Rank int
	Seq  uint64 // the region it was declared lost in
	At   time.Time
}

// NewMembers returns the membership of a job of size nodes, all live.
func NewMembers(size, maxLost int) Members {
	return Members{Live: Ranks(size), MaxLost: maxLost, lost: make([]bool, size)}
}

// Grow makes room for ranks below size (nodes that joined the job).
func (m *Members) Grow(size int) {
	for len(m.lost) < size {
		m.lost = append(m.lost, false)
	}
}

// MayLose reports whether the job may lose one more node (--max-lost).
func (m *Members) MayLose() bool {
	return m.MaxLost < 0 || len(m.Losses) < m.MaxLost
}

// Tolerant reports whether losses may be survived at all (--max-lost ≠ 0).
func (m *Members) Tolerant() bool { return m.MaxLost != 0 }

// IsLost reports whether rank was declared lost.
func (m *Members) IsLost(rank int) bool {
	return rank >= 0 && rank < len(m.lost) && m.lost[rank]
}

// declare records rank lost in region seq at at. The caller has checked
// MayLose.
func (m *Members) declare(rank int, seq uint64, at time.Time) {
	m.Grow(rank + 1)
	m.lost[rank] = true
	m.Losses = append(m.Losses, Loss{Rank: rank, Seq: seq, At: at})
}

// LoseAfterCommit handles rank lost while the master sent it region seq's
// result: the region is committed, so under the job's policy the node only
// takes no share of the next regions. It reports whether the loss is
// survived, and whether it is new (to be declared: the driver drops the
// connection, tells the launcher and prints the notice).
func (m *Members) LoseAfterCommit(rank int, seq uint64, at time.Time) (survived, declared bool) {
	if m.MaxLost == 0 || !m.MayLose() {
		return false, false
	}
	if m.IsLost(rank) {
		return true, false
	}
	m.declare(rank, seq, at)
	return true, true
}

// Survivors returns the live set without the nodes declared lost, and
// whether that differs from Live.
func (m *Members) Survivors() (next []int, changed bool) {
	if !slices.ContainsFunc(m.Live, m.IsLost) {
		return m.Live, false
	}
	return slices.DeleteFunc(slices.Clone(m.Live), m.IsLost), true
}

// Admit returns live with joined added: the nodes admitted at a region
// boundary, which share the regions from the next one on. It makes room
// for their ranks.
func (m *Members) Admit(live, joined []int) []int {
	if len(joined) == 0 {
		return live
	}
	m.Grow(slices.Max(joined) + 1)
	next := append(slices.Clone(live), joined...)
	slices.Sort(next)
	return next
}
