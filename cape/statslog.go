package cape

import (
	"os"
	"time"

	"github.com/cape-go/cape/cape/internal/stats"
	"github.com/cape-go/cape/delta"
)

// statsOut batches the lines --stats prints for every region, to standard
// error (stats.Log: written one by one, they slowed the regions measured).
// They go out when enough are pending or time has passed, and when the
// node ends (Finalize, exit).
var statsOut = stats.NewLog(os.Stderr, nil)

// regionStats are a region's measures for its --stats line (Exchange),
// kept from Start to Exchange when --stats is on.
type regionStats struct {
	t1                time.Time     // the compute's end (Create)
	starting, created time.Duration // Start's own time (the monitor's arming above all); Create's
	pages             int           // dirty pages found by Create
	faults            stats.Faults  // the compute's page faults (faults.go)
	// Exchange's parts: waiting for peers (the slowest node's compute
	// shows here), decoding + merging + injecting, encoding + sending.
	waited, merging, sent time.Duration
	// Slave: data bytes of the merged delta received, and how many of
	// them fall where this node's own delta has runs.
	mergedIn, ownIn int
	// Distributed homes: the pages copied to the buddy, to which node, and
	// how long that took.
	replPages, replTo int
	replSelf          bool
	replicate         time.Duration
}

// printStats adds r's --stats line: d is this node's delta, exchange the
// time Exchange took, sent and recvd the bytes it sent and received.
func (r *Region) printStats(d *delta.Delta, exchange time.Duration, sent, recvd int) {
	s, n := r.stats, r.n
	line := stats.Region{Node: n.name, Name: r.name, Seq: r.seq,
		Start: s.starting, Compute: s.t1.Sub(r.t0), Create: s.created, Pages: s.pages, Bytes: d.Len(),
		Exchange: exchange, Wait: s.waited, Merge: s.merging, Send: s.sent, Sent: sent, Received: recvd,
		Slave: n.rank > 0, MergedIn: s.mergedIn, OwnIn: s.ownIn,
		ReplPages: s.replPages, ReplTo: s.replTo, ReplSelf: s.replSelf, Replicate: s.replicate,
		Reexec: r.reexecStats(), Faults: s.faults.Note(), Hints: r.hintStats()}
	_, _ = statsOut.Write(stats.AppendRegion(nil, &line))
	n.statsTotal.Add(&line)
}

// printTotals adds the node's --stats totals line at the job's end.
func (n *node) printTotals() {
	if n.plan.Stats {
		_, _ = statsOut.Write(stats.AppendTotals(nil, n.name, &n.statsTotal))
	}
}
