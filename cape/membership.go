package cape

// The job's live set and losses (the state, the --max-lost policy and the
// texts are roster.Members'): this file announces and adopts the live set
// and carries out a loss (the launcher, the input stream, the connection,
// the notice). The master sends the live set (wire.Live) just before a
// region's merged delta, and each slave adopts it before the next region
// begins. A slave lost at any other time is still in the live set of the
// region that follows: its share of that region is re-executed like the
// share of a node lost inside it.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// split returns this node's virtual rank and the number of nodes sharing
// the next region.
func (n *node) split() (rank, size int) {
	if n.members.Live == nil {
		// A node built without join (tests): everyone is live, no loss
		// is survived.
		n.members = roster.NewMembers(max(n.size, 1), 0)
	}
	i, ok := slices.BinarySearch(n.members.Live, n.rank)
	if !ok {
		// Not reached: a node dropped from the live set exits on the
		// live message that drops it.
		fail(fmt.Errorf("node %d is not in the live set %v", n.rank, n.members.Live))
	}
	return i, len(n.members.Live)
}

// declareLost gives up on rank, declared lost in region seq (the
// roster's or the membership's decision, already recorded): the launcher
// stops it, the input stream forgets it, and its connection is dropped —
// or, for a straggler, kept open so that its late messages can be refused
// (and reported); it is then told to leave. No lock is held.
func (n *node) declareLost(rank int, seq uint64, straggler bool) {
	// The launcher, if any, stops the node: the job does not wait for it.
	n.cfg.ReportLost(rank, fmt.Sprintf("declared lost in region #%d", seq))
	n.stdinLost(rank)
	if straggler {
		_ = n.master.Exclude(rank)
		return
	}
	_ = n.master.Drop(rank)
}

// announceLive sends the slaves the live set of the next regions when
// losses or joining nodes (join.go) changed it, and adopts it (master).
func (n *node) announceLive(seq uint64) {
	n.lossMu.Lock()
	next, changed := n.members.Survivors()
	n.lossMu.Unlock()
	if joined := n.admitJoiners(seq, next); len(joined) > 0 {
		// The job's size becomes one more than the largest rank.
		n.size = max(n.size, slices.Max(joined)+1)
		n.joins.Admitted(joined)
		n.lossMu.Lock()
		next = n.members.Admit(next, joined)
		n.lossMu.Unlock()
		changed = true
	}
	if !changed {
		return
	}
	n.members.Live = next
	// A send that fails is a loss found in the next region.
	_ = n.master.Broadcast(transport.Message{Kind: wire.Live, Seq: seq, Payload: wire.LivePayload(next)})
}

// adoptLive applies a live message (slave): a node left out of it was
// declared lost and leaves the job.
func (n *node) adoptLive(p []byte) error {
	first := 0 // nodes that joined the running job take ranks from the job's size on
	if n.cfg != nil {
		first = n.cfg.Size
	}
	live, err := wire.ParseLive(p, n.members.Live, first, maxJoiners)
	if err != nil {
		return fmt.Errorf("live set from the master: %w", err)
	}
	if _, ok := slices.BinarySearch(live, n.rank); !ok {
		return fmt.Errorf("%w (left out of the live set)", ErrLeft)
	}
	n.members.Live = live
	return nil
}

// summary prints the master's final line about the nodes it lost, if any.
func (n *node) summary() {
	inside := ""
	if n.cur != nil {
		inside = n.cur.label()
	}
	n.lossMu.Lock()
	text := n.members.Summary(n.size, inside)
	n.lossMu.Unlock()
	if text != "" {
		notice("cape: master: %s\n", text)
	}
}

// loseAfterCommit handles a slave lost while the master sent it a region's
// result (err from the broadcast names it): the region is committed, so
// under the job's policy the node is only left out of the next regions. It
// reports whether the loss is survived.
func (n *node) loseAfterCommit(r *Region, err error) bool {
	var ne *transport.NodeError
	if !errors.As(err, &ne) || ne.Rank < 1 || ne.Rank >= n.size {
		return false
	}
	now := time.Now()
	n.lossMu.Lock()
	survived, declared := n.members.LoseAfterCommit(ne.Rank, r.seq, now)
	n.lossMu.Unlock()
	if declared {
		n.declareLost(ne.Rank, r.seq, false)
		notice("cape: master: %s\n", roster.AfterCommitText(ne.Rank, now, r.label(), err))
	}
	return survived
}

// dropLost closes the connections of the nodes declared lost that were
// kept open to refuse their late messages (master, at the end of the job).
func (n *node) dropLost() {
	n.lossMu.Lock()
	losses := slices.Clone(n.members.Losses)
	n.lossMu.Unlock()
	for _, l := range losses {
		_ = n.master.Drop(l.Rank)
	}
}
