package cape

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/cape/internal/lazy"
	"github.com/cape-go/cape/cape/internal/stats"
	"github.com/cape-go/cape/cape/internal/wire"
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
	rd := &lazy.Round{Seq: r.seq, Name: r.name, Extent: r.extent, Merged: merged, Deltas: ds,
		Committed: r.roster.committed,
		// Small results go one after the other from this goroutine: a
		// write returns once the bytes are in the socket buffer, and a
		// goroutine per slave would cost each a thread wake-up.
		Parallel: len(r.roster.committed) > 1 && merged.Len() >= parallelSendBytes,
		Seal: func(dst []byte, push *delta.Delta) ([]byte, error) {
			return wire.AppendEnvelope(dst, push, vals, n.compression())
		},
		Send: func(rank int, payload []byte) error {
			return n.master.Send(rank, transport.Message{Kind: wire.Merged, Seq: r.seq, Payload: payload})
		}}
	if n.plan.Stats {
		rd.Now = time.Now // the step times go to --stats only
	}
	rep, err := m.Exchange(rd)
	if err != nil {
		return 0, r.fail(fmt.Errorf("lazy transfer: %w", err))
	}
	sent := 0
	for _, s := range r.roster.committed {
		o := m.Result(s)
		sent += o.Size
		if n.plan.Stats {
			_, _ = statsOut.Write(stats.AppendLazy(nil, &stats.Lazy{Name: r.name, Seq: r.seq, Node: s,
				Size: o.Size, Pushed: o.Pushed, Notices: o.Notices, Eager: o.Eager, Fetched: o.Fetched,
				Pages: rep.Pages, Plan: rep.Plan, Snapshot: rep.Snapshot, Snapped: rep.Snapped, Copied: rep.Copied, Compared: rep.Compared, Send: rep.Send}))
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
