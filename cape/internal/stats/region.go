package stats

import (
	"fmt"
	"time"
)

// Region is what the --stats line of one region says. It is a plain value.
type Region struct {
	Node string // "master" or "node 2"
	Name string // the region's name ("file.go:line:col")
	Seq  uint64

	Start   time.Duration // Start's own time (arming the monitor above all)
	Compute time.Duration // from Start to Create
	Create  time.Duration // collecting the delta
	Pages   int           // dirty pages found by Create
	Bytes   int           // data bytes of this node's delta

	// The exchange's parts: waiting for peers, decoding + merging +
	// injecting, encoding + sending, and the whole.
	Exchange, Wait, Merge, Send time.Duration
	Sent, Received              int // bytes

	// Slave: data bytes of the merged delta received, and how many of
	// them fall where this node's own delta has runs.
	Slave           bool
	MergedIn, OwnIn int

	// Distributed homes: the pages this node copied to its buddy (ReplTo)
	// before its notice, or kept in its own replica (ReplSelf: one host;
	// ReplTo unused), and how long that took (0 pages: no note).
	ReplPages, ReplTo int
	ReplSelf          bool
	Replicate         time.Duration

	// Notes that end the line, already formatted ("; ..." or empty): the
	// roster's, FaultNote's and HintNote's.
	Reexec, Faults, Hints string
}

// us rounds d to microseconds, the unit the line prints.
func us(d time.Duration) time.Duration { return d.Round(time.Microsecond) }

// AppendRegion appends the --stats line of s, newline included, to dst.
func AppendRegion(dst []byte, s *Region) []byte {
	dst = fmt.Appendf(dst, "cape: %s: region %s #%d: start %v, compute %v, create %v (%d pages, %d bytes), exchange %v = wait %v + merge/inject %v + send %v (sent %d, received %d bytes)",
		s.Node, s.Name, s.Seq, us(s.Start), us(s.Compute), us(s.Create), s.Pages, s.Bytes,
		us(s.Exchange), us(s.Wait), us(s.Merge), us(s.Send), s.Sent, s.Received)
	if s.Slave {
		dst = fmt.Appendf(dst, "; merged delta received: %d bytes, %d of them where this node wrote", s.MergedIn, s.OwnIn)
	}
	switch {
	case s.ReplPages > 0 && s.ReplSelf:
		dst = fmt.Appendf(dst, "; before the notice, %d pages kept by its own helper in %v", s.ReplPages, us(s.Replicate))
	case s.ReplPages > 0:
		dst = fmt.Appendf(dst, "; before the notice, %d pages copied to node %d in %v", s.ReplPages, s.ReplTo, us(s.Replicate))
	}
	dst = append(dst, s.Reexec...)
	dst = append(dst, s.Faults...)
	dst = append(dst, s.Hints...)
	return append(dst, '\n')
}

// Faults counts the page faults of a region's compute from two readings
// of the process's count, each negative where the platform cannot count.
// The zero Faults has counted none. It is not safe for concurrent use.
type Faults struct{ start, n int64 }

// Start records the count as the compute begins.
func (f *Faults) Start(count int64) { f.start = count }

// End records the count as the compute ends; the faults in between are
// then known unless either reading was negative.
func (f *Faults) End(count int64) {
	f.n = -1
	if f.start >= 0 && count >= 0 {
		f.n = count - f.start
	}
}

// Note is FaultNote of the faults counted between Start and End.
func (f *Faults) Note() string { return FaultNote(f.n) }

// FaultNote is the note on the page faults of a region's compute: empty
// where they were not counted (faults < 0).
func FaultNote(faults int64) string {
	if faults < 0 {
		return ""
	}
	return fmt.Sprintf("; %d page faults in the compute", faults)
}

// HintNote is the note on what the region's Start told the monitor: the
// number of spans the region writes in when bounded, and whether the
// stretch before it was clean.
func HintNote(bounded, clean bool, spans int) string {
	switch {
	case bounded && clean:
		return fmt.Sprintf("; hints: writes in %d span(s), clean stretch", spans)
	case bounded:
		return fmt.Sprintf("; hints: writes in %d span(s)", spans)
	case clean:
		return "; hints: clean stretch"
	}
	return ""
}

// Lazy is what the master's --stats line on the lazy transfer to one
// slave after a region says (package lazy's Result and Report).
type Lazy struct {
	Name string // the region's name
	Seq  uint64
	Node int // the slave's rank

	// To this slave: the payload's bytes, the pages pushed, the write
	// notices, whether everything changed was pushed, and the bytes of
	// pages it fetched since the last exchange.
	Size, Pushed, Notices int
	Eager                 bool
	Fetched               int

	// The exchange's steps (for every slave): finding the changed pages,
	// planning, the snapshot (its pages, those copied and those
	// compared), sending.
	Pages, Plan, Snapshot     time.Duration
	Snapped, Copied, Compared int
	Send                      time.Duration
}

// AppendLazy appends the --stats line of s, newline included, to dst.
func AppendLazy(dst []byte, s *Lazy) []byte {
	return fmt.Appendf(dst, "cape: master: lazy transfer after region %s #%d: node %d: %d bytes sent (%d pages pushed, %d write notices, eager %v), %d bytes of pages fetched since the last exchange; pages %v, plan %v, snapshot %v (%d pages: %d copied, %d compared), send %v\n",
		s.Name, s.Seq, s.Node, s.Size, s.Pushed, s.Notices, s.Eager, s.Fetched,
		us(s.Pages), us(s.Plan), us(s.Snapshot), s.Snapped, s.Copied, s.Compared, us(s.Send))
}

// Totals sums a node's region lines, for the line --stats ends with.
type Totals struct {
	Regions                                             int
	Start, Compute, Create, Exchange, Wait, Merge, Send time.Duration
	Pages                                               int
	Bytes, Sent, Received                               int64
}

// Add adds one region's line.
func (t *Totals) Add(s *Region) {
	t.Regions++
	t.Start += s.Start
	t.Compute += s.Compute
	t.Create += s.Create
	t.Exchange += s.Exchange
	t.Wait += s.Wait
	t.Merge += s.Merge
	t.Send += s.Send
	t.Pages += s.Pages
	t.Bytes += int64(s.Bytes)
	t.Sent += int64(s.Sent)
	t.Received += int64(s.Received)
}

// AppendTotals appends node's totals line, or nothing without a region.
func AppendTotals(dst []byte, node string, t *Totals) []byte {
	if t.Regions == 0 {
		return dst
	}
	all := t.Start + t.Compute + t.Create + t.Exchange
	return fmt.Appendf(dst, "cape: %s: totals of %d regions: %v = start %v + compute %v + create %v (%d pages, %d bytes) + exchange %v (wait %v, merge/inject %v, send %v); sent %d, received %d bytes\n",
		node, t.Regions, us(all), us(t.Start), us(t.Compute), us(t.Create), t.Pages, t.Bytes,
		us(t.Exchange), us(t.Wait), us(t.Merge), us(t.Send), t.Sent, t.Received)
}
