package lazy

import (
	"sync"
	"time"

	"github.com/cape-go/cape/delta"
)

// Round is one lazy exchange as the master's driver describes it to
// Exchange, once the region's merged delta is injected into the arena.
type Round struct {
	Seq    uint64
	Name   string       // the region's name: its next instance pushes what slaves fetched after this one
	Extent int          // the region's extent in the arena
	Merged *delta.Delta // the merged delta
	// Deltas are the deltas merged, by rank; nil for a node lost in the
	// region (nothing of it was merged).
	Deltas []*delta.Delta
	// Committed are the slaves that committed the region: only they get
	// its result (a lost one takes no share of the next regions).
	Committed []int
	// Parallel sends to the slaves from one goroutine each; otherwise one
	// after the other from the caller's.
	Parallel bool
	// Seal appends to dst the envelope around push, the bytes pushed to
	// a slave, with the region's values. It may be called concurrently.
	Seal func(dst []byte, push *delta.Delta) ([]byte, error)
	// Send sends slave rank its payload, a lazy merged payload, and
	// returns once payload may be reused. It may be called concurrently.
	Send func(rank int, payload []byte) error
	// Now is the driver's clock, for Report's step times; nil (no
	// --stats) leaves them zero and reads no clock.
	Now func() time.Time
}

// Report is what an Exchange took, for --stats.
type Report struct {
	Pages, Plan, Send, Snapshot time.Duration // its steps: finding the changed pages, planning, sending, the snapshot (zero unless Round.Now is set)
	// Snapped is the number of pages in the snapshot; Copied and Compared
	// the pages this snapshot copied (changed or new) and compared
	// without copying.
	Snapped, Copied, Compared int
}

// Result is what an Exchange sent to one slave.
type Result struct {
	Size    int  // the payload's bytes
	Pushed  int  // pages pushed
	Notices int  // write notices
	Eager   bool // everything changed was pushed: the slave read most of it last time
	Fetched int  // bytes of pages the slave fetched since the previous exchange
	Err     error
}

// slaveOut is Exchange's state for one slave: its plan, the bytes it
// fetched since the last exchange, the merged runs it did not write, the
// delta pushed to it, its envelope and payload, and the send's size and
// error. A send completes before Exchange returns, so the buffers are free
// at the next region.
type slaveOut struct {
	plan         plan
	fetched      int
	runs         []delta.Run
	push         delta.Delta
	env, payload []byte
	size         int
	err          error
}

// grow sizes Exchange's per-rank state for size nodes, clearing the
// counts and errors of the last region.
func (m *Master) grow(size int) {
	if len(m.out) != size {
		m.out = make([]slaveOut, size)
	}
	for i := range m.out {
		o := &m.out[i]
		o.fetched, o.size, o.err = 0, 0, nil
	}
}

// Exchange is the master's end of a lazy exchange: it plans each
// committed slave's notices and pushes, sends each its part (Round.Send),
// and snapshots the pages slaves lack, so that the page server serves
// this region's result (a fetch waits for it). It fails only where the
// page server could not accept the helpers; what each send did is in
// Result.
func (m *Master) Exchange(rd *Round) (Report, error) {
	var rep Report
	now := rd.Now
	if now == nil {
		now = zeroTime
	}
	tp := now()
	m.changedBuf = appendPages(m.changedBuf[:0], rd.Merged, m.ps)
	changed := m.changedBuf
	m.pagesBuf = fillWriters(m.writer, m.pagesBuf, rd.Deltas, m.ps)
	writer := m.writer
	m.grow(len(m.lacks))
	out := m.out
	t0 := now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.acceptErr; err != nil {
		return rep, err
	}
	for s := range out {
		out[s].fetched = m.served[s]
	}
	clear(m.served)
	for _, s := range rd.Committed {
		m.plan(&out[s].plan, s, rd.Name, changed, writer)
	}
	// The results go out before the snapshot, under mu: a slave's fetch
	// of this region's pages waits for it, and the slave, which starts
	// its next region once it has the notices, waits for nothing.
	t1 := now()
	arena := m.arena[:rd.Extent]
	var wg sync.WaitGroup
	for _, s := range rd.Committed {
		send := func() {
			// No node receives its own bytes back.
			o := &out[s]
			o.runs = delta.Exclude(o.runs[:0], rd.Merged.Runs, rd.Deltas[s].Runs)
			pushDelta(&o.push, rd.Seq, o.runs, o.plan.act, arena, m.ps)
			if o.env, o.err = rd.Seal(o.env[:0], &o.push); o.err != nil {
				return
			}
			o.payload = AppendMerged(o.payload[:0], o.plan.notices, o.env)
			o.size = len(o.payload)
			o.err = rd.Send(s, o.payload)
		}
		if rd.Parallel {
			wg.Go(send)
		} else {
			send()
		}
	}
	wg.Wait()
	t2 := now()
	m.snapshot(writer, changed)
	m.version = rd.Seq
	rep.Snapped, rep.Copied, rep.Compared = len(m.snap), m.copied, m.compared
	rep.Pages, rep.Plan, rep.Send, rep.Snapshot = t0.Sub(tp), t1.Sub(t0), t2.Sub(t1), now().Sub(t2)
	return rep, nil
}

// zeroTime is the clock of an untimed Exchange.
func zeroTime() time.Time { return time.Time{} }

// Result returns what the last Exchange sent to slave rank. Like
// Exchange, it is for the region's goroutine.
func (m *Master) Result(rank int) Result {
	o := &m.out[rank]
	return Result{Size: o.size, Pushed: len(o.plan.act), Notices: len(o.plan.notices), Eager: o.plan.eager,
		Fetched: o.fetched, Err: o.err}
}

// appendPages appends to out the pages d's runs touch, in increasing order.
func appendPages(out []int, d *delta.Delta, ps int) []int {
	base := len(out)
	for _, run := range d.Runs {
		if len(run.Data) == 0 {
			continue
		}
		lo, hi := int(run.Off)/ps, int(run.End()-1)/ps
		for p := lo; p <= hi; p++ {
			if len(out) == base || out[len(out)-1] < p {
				out = append(out, p)
			}
		}
	}
	return out
}

// fillWriters maps, in w (cleared), every page the deltas ds touch to
// the one rank that touched it, or -1 when several did; buf is scratch
// space, returned grown.
func fillWriters(w map[int]int, buf []int, ds []*delta.Delta, ps int) []int {
	clear(w)
	for rank, d := range ds {
		if d == nil {
			continue // a lost node: nothing of it was merged
		}
		buf = appendPages(buf[:0], d, ps)
		for _, p := range buf {
			if prev, ok := w[p]; ok && prev != rank {
				w[p] = -1
			} else {
				w[p] = rank
			}
		}
	}
	return buf
}

// pushDelta sets d to the part of runs (the merged delta) that act pushes:
// the runs on actRuns pages, and the whole of actWhole pages from arena
// (as injected).
func pushDelta(d *delta.Delta, seq uint64, runs []delta.Run, act map[int]uint8, arena []byte, ps int) {
	d.Reset(seq, delta.Merged)
	if len(act) == 0 {
		return
	}
	whole := -1
	for _, run := range runs {
		off := int(run.Off)
		data := run.Data
		for len(data) > 0 {
			p := off / ps
			k := min(len(data), (p+1)*ps-off)
			switch act[p] {
			case actRuns:
				delta.AppendFull(d, uint64(off), data[:k])
			case actWhole:
				if whole != p {
					delta.AppendFull(d, uint64(p*ps), arena[p*ps:(p+1)*ps])
					whole = p
				}
			}
			off, data = off+k, data[k:]
		}
	}
}
