package cape

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/cape/internal/lazy"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// sendLazy is the master's end of a lazy exchange, once merged is injected
// (lazy.Master.Exchange): each committed slave is sent its notices and
// pushes in a merged message. ds are the deltas merged, by rank. It
// returns the bytes sent.
func (r *Region) sendLazy(merged *delta.Delta, ds []*delta.Delta) (int, error) {
	n := r.n
	m := n.lazyM
	vals := r.results()
	rep, err := m.Exchange(&lazy.Round{Seq: r.seq, Name: r.name, Extent: r.extent, Merged: merged, Deltas: ds,
		Committed: r.roster.committed,
		// Small results go one after the other from this goroutine: a
		// write returns once the bytes are in the socket buffer, and a
		// goroutine per slave would cost each a thread wake-up.
		Parallel: len(r.roster.committed) > 1 && merged.Len() >= parallelSendBytes,
		Seal: func(dst []byte, push *delta.Delta) ([]byte, error) {
			return appendEnvelope(dst, push, vals, n.compression())
		},
		Send: func(rank int, payload []byte) error {
			return n.master.Send(rank, transport.Message{Kind: kindMerged, Seq: r.seq, Payload: payload})
		}})
	if err != nil {
		return 0, r.fail(fmt.Errorf("lazy transfer: %w", err))
	}
	sent := 0
	for _, s := range r.roster.committed {
		o := m.Result(s)
		sent += o.Size
		if n.stats {
			statsf("cape: master: lazy transfer after region %s #%d: node %d: %d bytes sent (%d pages pushed, %d write notices, eager %v), %d bytes of pages fetched since the last exchange; pages %v, plan %v, snapshot %v (%d pages: %d copied, %d compared), send %v\n",
				r.name, r.seq, s, o.Size, o.Pushed, o.Notices, o.Eager, o.Fetched,
				rep.Pages.Round(time.Microsecond), rep.Plan.Round(time.Microsecond), rep.Snapshot.Round(time.Microsecond), rep.Snapped, rep.Copied, rep.Compared, rep.Send.Round(time.Microsecond))
		}
	}
	for _, s := range r.roster.committed {
		// A slave lost while it is sent the result only takes no share of
		// the next regions, if the policy allows.
		if err := m.Result(s).Err; err != nil && !n.loseAfterCommit(r, err) {
			return sent, r.fail(err)
		}
	}
	return sent, nil
}
