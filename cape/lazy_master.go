package cape

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/pagemem"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// lazyMaster is the master's side of lazy transfer: what each slave lacks,
// what it fetched, and the page server. The page server's goroutines (one
// per slave) and the region's goroutine share it under mu.
//
// The page server serves a page as of the last exchange from a snapshot
// that the exchange takes of every page some slave lacks (the master's
// memory changes afterwards: its sequential code, its share of the next
// region). A slave cannot lack a page past the next exchange's gather
// without asking for it then, since it sends its delta only after its
// share is done.
type lazyMaster struct {
	mem    []byte // the arena
	ln     net.Listener
	ps     int
	npages int
	stats  bool
	wg     sync.WaitGroup

	mu sync.Mutex
	// mu protects the following fields.
	pm        *transport.Master    // the helpers' connections, once all are in (accept)
	acceptErr error                // why they are not
	closed    bool                 // close was called
	version   uint64               // the last exchange: pages are served as of its end
	snap      map[int][]byte       // every page some slave lacks, as of that exchange
	lacks     []map[int]string     // by rank: the pages the slave invalidated and did not fetch, and the region whose notice invalidated each
	nlack     map[int]int          // by page: how many slaves lack it
	learned   map[string][]pageSet // by region name, by rank: pages the slave fetched after that region's notice
	served    []int                // by rank: bytes of pages served since the last exchange
	next      []int                // by rank: the page after the last one served (a streaming reader asks for it next)

	// watch, if not nil, is the master's tracker, which tells the pages
	// written between regions: a snapshot refreshes only the pages that
	// may have changed since the last one. starts is its Starts at the
	// last snapshot, or -1.
	watch  monitor.Watcher
	starts int
	// Scratch space of sendLazy, reused from one region to the next.
	changedBuf, pagesBuf []int
	writer               map[int]int
	// copied, compared: pages the last snapshot copied (changed or new),
	// and compared without copying, for --stats; visited: the lacked pages
	// it looked at.
	copied, compared, visited int
	// unsnapped: the pages lacked since the last snapshot (some may have
	// one, or be lacked no more); topLack: the highest page ever lacked.
	// candBuf: snapshot's scratch space.
	// snapTop: topLack at the last snapshot.
	unsnapped, candBuf []int
	topLack, snapTop   int
	// spare: pages of snapshot storage not in use, taken from slabs that
	// are populated in one call each (see reservePages).
	spare [][]byte
	// out is sendLazy's state for each slave, by rank, reused from one
	// region to the next.
	out []lazyOut
}

// lazyOut is what sendLazy decides and sends for one slave: its plan, the
// bytes it fetched since the last exchange, the merged runs it did not
// write, the delta pushed to it, its envelope and payload, and the send's
// size and error. A send completes before sendLazy returns, so the buffers
// are free at the next region.
type lazyOut struct {
	plan         lazyPlan
	fetched      int
	runs         []delta.Run
	push         delta.Delta
	env, payload []byte
	size         int
	err          error
}

// grow sizes sendLazy's per-rank state for size nodes, clearing the
// counts and errors of the last region.
func (m *lazyMaster) grow(size int) {
	if len(m.out) != size {
		m.out = make([]lazyOut, size)
	}
	for i := range m.out {
		o := &m.out[i]
		o.fetched, o.size, o.err = 0, 0, nil
	}
}

// pageSet is a set of page indices.
type pageSet map[int]struct{}

func newLazyMaster(n *node, ln net.Listener) *lazyMaster {
	m := &lazyMaster{mem: n.arena.Bytes(), ln: ln, ps: n.arena.PageSize(), npages: len(n.arena.Bytes()) / n.arena.PageSize(),
		stats: n.stats, snap: map[int][]byte{}, nlack: map[int]int{}, lacks: make([]map[int]string, n.size),
		learned: map[string][]pageSet{}, served: make([]int, n.size), next: make([]int, n.size), starts: -1,
		writer: map[int]int{}}
	if w, ok := n.tracker.(monitor.Watcher); ok {
		w.WatchBetween()
		m.watch = w
	}
	for rank := range m.lacks {
		m.lacks[rank] = map[int]string{}
	}
	tcfg := transport.Config{Token: n.cfg.Token, JobID: pager.JobID(n.cfg.Job), Size: n.size,
		Broadcast: transport.BroadcastStar, MaxFrame: 1 << 20, PeerTimeout: n.cfg.PeerTimeout}
	if d := n.cfg.PeerTimeout; d > 0 {
		tcfg.HandshakeTimeout = 3 * d
	}
	m.wg.Add(1)
	go m.accept(tcfg, n.size)
	return m
}

// accept waits, in the background, for the slaves' helpers to connect,
// then serves them. Nothing waits for it: a helper is needed only once
// its node has invalidated a page, and a helper that cannot connect stops
// its node. Its error, unless close caused it, fails the next lazy
// exchange.
func (m *lazyMaster) accept(tcfg transport.Config, size int) {
	defer m.wg.Done()
	pm, err := transport.NewMaster(m.ln, tcfg)
	// Every helper is in, or none will be: nothing more is accepted for
	// the page server (its share of the master's port ends).
	_ = m.ln.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		if pm != nil {
			_ = pm.Close()
		}
		return
	}
	if err != nil {
		m.acceptErr = fmt.Errorf("wait for the slaves' page helpers: %w", err)
		return
	}
	m.pm = pm
	for rank := 1; rank < size; rank++ {
		m.wg.Add(1)
		go m.serve(pm, rank)
	}
}

// close stops the page server once the slaves are done (Finalize).
func (m *lazyMaster) close() error {
	m.mu.Lock()
	m.closed = true
	pm := m.pm
	m.mu.Unlock()
	err := m.ln.Close() // ends an accept still waiting
	if errors.Is(err, net.ErrClosed) {
		err = nil // accept closed it
	}
	if pm != nil {
		err = errors.Join(pm.Close(), err)
	}
	m.wg.Wait()
	return err
}

// serve answers the page requests of one slave's helper until its
// connection ends. A refused request is answered with the reason (the
// helper then stops its node, naming it); the end of a connection is not an
// error here: the slave's own connection tells the job.
func (m *lazyMaster) serve(pm *transport.Master, rank int) {
	defer m.wg.Done()
	for {
		msg, err := pm.Recv(rank)
		if err != nil {
			return
		}
		out, err := m.answer(rank, msg)
		reply := transport.Message{Kind: pager.KindPages, Seq: msg.Seq, Payload: out}
		if err != nil {
			reply = transport.Message{Kind: pager.KindPageErr, Seq: msg.Seq, Payload: []byte(err.Error())}
		}
		if err := pm.Send(rank, reply); err != nil {
			return
		}
	}
}

// answer returns the pages for a request of rank's helper: the page asked
// for and, when the slave reads pages in order (it asks for the page after
// the last one served), the pages after it that it lacks too (read ahead).
// A single page otherwise: a page read ahead counts as read, and would be
// pushed at every instance of its region.
func (m *lazyMaster) answer(rank int, msg transport.Message) ([]byte, error) {
	if msg.Kind != pager.KindPageReq {
		return nil, fmt.Errorf("message kind %d, want a page request", msg.Kind)
	}
	p, err := pager.ParseRequest(msg.Payload, m.npages)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if msg.Seq != m.version {
		return nil, fmt.Errorf("node %d asked for page %d as of region #%d; the master is at #%d", rank, p, msg.Seq, m.version)
	}
	lacks := m.lacks[rank]
	if _, ok := lacks[p]; !ok {
		return nil, fmt.Errorf("node %d asked for page %d, which it holds", rank, p)
	}
	out := make([]byte, 0, 2*(8+m.ps))
	ahead := 1
	if p == m.next[rank] {
		ahead = pager.MaxPages
	}
	q := p
	for ; q < m.npages && q < p+ahead; q++ {
		region, ok := lacks[q]
		if !ok {
			break
		}
		out = pager.AppendPage(out, q, m.snap[q])
		m.unlack(rank, q)
		m.learnedSet(region, rank)[q] = struct{}{}
	}
	m.next[rank] = q
	m.served[rank] += len(out)
	return out, nil
}

// lack records that slave s lacks page p since region's notice. Callers
// hold mu.
func (m *lazyMaster) lack(s, p int, region string) {
	m.lacks[s][p] = region
	if m.nlack[p]++; m.nlack[p] == 1 {
		m.unsnapped = append(m.unsnapped, p)
		m.topLack = max(m.topLack, p)
	}
}

// unlack records that slave s holds page p again. Callers hold mu.
func (m *lazyMaster) unlack(s, p int) {
	delete(m.lacks[s], p)
	if m.nlack[p]--; m.nlack[p] <= 0 {
		delete(m.nlack, p)
		if b, ok := m.snap[p]; ok {
			m.spare = append(m.spare, b)
			delete(m.snap, p)
		}
	}
}

// snapshot takes the pages some slave lacks from the arena, after the
// exchange injected the region's result; touched holds every page a delta
// of the region touched, changed (increasing) those of the merged delta.
// Callers hold mu.
//
// A page already in the snapshot is refreshed only if it may have changed
// since the last snapshot: this region's deltas touched it, or the
// master's tracker says it may have been written since the last region's
// Stop, which was before the last snapshot. Without a tracker that can
// tell, or with another Start since the last snapshot, every lacked page
// is compared. With one, only the pages that may have changed are
// visited, so that the pages slaves lack and no one writes any more (a
// program's dropped or leaked buffers) cost nothing per region.
func (m *lazyMaster) snapshot(touched map[int]int, changed []int) {
	m.copied, m.compared, m.visited = 0, 0, 0
	var b *monitor.Between
	// walk: every lacked page is visited. Otherwise the pages lacked
	// without a snapshot are among those lacked since the last one
	// (unsnapped), and the others, all lacked then and so below the
	// extent of the last Start but one, which the tracker knows, may
	// have changed only if the region touched them or the tracker saw
	// them written.
	walk := true
	if m.watch != nil {
		bw := m.watch.Between()
		if m.starts >= 0 && bw.Starts == m.starts+1 {
			b = &bw
			walk = m.snapTop >= bw.Known()
		}
		m.starts = bw.Starts
	}
	m.snapTop = m.topLack
	// Every snapshot is of a lacked page (unlack drops it with the last
	// lack), so the pages lacked without one are the difference.
	m.reservePages(len(m.nlack) - len(m.snap))
	if walk {
		for p := range m.nlack {
			m.snapPage(p, touched, changed, b)
		}
		m.unsnapped = m.unsnapped[:0]
		return
	}
	cand := append(m.candBuf[:0], m.unsnapped...)
	for p := range touched {
		cand = append(cand, p)
	}
	cand = append(cand, changed...)
	cand = append(cand, b.Written()...)
	slices.Sort(cand)
	cand = slices.Compact(cand)
	for _, p := range cand {
		if m.nlack[p] > 0 {
			m.snapPage(p, touched, changed, b)
		}
	}
	m.candBuf = cand[:0]
	m.unsnapped = m.unsnapped[:0]
}

// snapPage takes or refreshes the snapshot of the lacked page p (see
// snapshot). Callers hold mu.
func (m *lazyMaster) snapPage(p int, touched map[int]int, changed []int, b *monitor.Between) {
	ps := m.ps
	m.visited++
	cur := m.mem[p*ps : (p+1)*ps]
	snap, ok := m.snap[p]
	_, hit := touched[p]
	if !hit {
		_, hit = slices.BinarySearch(changed, p)
	}
	switch {
	case !ok:
		buf := m.spare[len(m.spare)-1]
		m.spare = m.spare[:len(m.spare)-1]
		copy(buf, cur)
		m.snap[p] = buf
		m.copied++
	case hit:
		copy(snap, cur) // likely changed: comparing first costs more
		m.copied++
	case b != nil && !b.MayHaveChanged(p):
		// As of the last snapshot.
	case !bytes.Equal(snap, cur):
		copy(snap, cur)
		m.copied++
	default:
		m.compared++
	}
}

// reservePages makes sure n pages of snapshot storage are spare: the
// missing ones come from one new slab, populated in one call
// rather than a fault per page. Callers hold mu.
func (m *lazyMaster) reservePages(n int) {
	k := n - len(m.spare)
	if k <= 0 {
		return
	}
	slab := make([]byte, k*m.ps)
	pagemem.Populate(slab)
	for i := range k {
		m.spare = append(m.spare, slab[i*m.ps:(i+1)*m.ps:(i+1)*m.ps])
	}
}

// Page actions of a lazy plan.
const (
	actRuns  = 1 + iota // push the merged runs on the page
	actWhole            // push the whole page: the slave lacks it
)

// lazyPlan is what one slave gets at the end of a region.
type lazyPlan struct {
	act     map[int]uint8 // pushed pages
	notices []int
	eager   bool // the slave read most of what changed last time: everything is pushed
}

// learnedSet returns the set of pages slave s fetched after the notices
// of region name, which that region's next instance pushes to it. Callers
// hold mu.
func (m *lazyMaster) learnedSet(name string, s int) pageSet {
	sets := m.learned[name]
	if sets == nil {
		sets = make([]pageSet, len(m.lacks))
		m.learned[name] = sets
	}
	if sets[s] == nil {
		sets[s] = pageSet{}
	}
	return sets[s]
}

// plan decides, for slave s at the end of region name, which changed pages
// it gets pushed and which it gets notices of. writer[p] is the only rank
// whose delta touched p, or -1. Callers hold mu.
func (m *lazyMaster) plan(pl *lazyPlan, s int, name string, changed []int, writer map[int]int) {
	var learned pageSet
	if sets := m.learned[name]; sets != nil {
		learned = sets[s]
	}
	hits := 0
	for _, p := range changed {
		if _, ok := learned[p]; ok {
			hits++
		}
	}
	// Where the slave read most of what changed, the notices and faults
	// cannot pay: push everything, as the eager transfer does.
	if pl.act == nil {
		pl.act = map[int]uint8{}
	}
	clear(pl.act)
	pl.notices = pl.notices[:0]
	pl.eager = len(changed) > 0 && 2*hits >= len(changed)
	lacks := m.lacks[s]
	for _, p := range changed {
		if writer[p] == s {
			continue // its own writes: it has the page as merged
		}
		_, lacking := lacks[p]
		_, wanted := learned[p]
		switch {
		case (pl.eager || wanted) && lacking:
			pl.act[p] = actWhole
			m.unlack(s, p)
		case pl.eager || wanted:
			pl.act[p] = actRuns
		case !lacking:
			pl.notices = append(pl.notices, p)
			m.lack(s, p, name)
		}
	}
}

// sendLazy is the master's end of a lazy exchange, once merged is injected:
// it plans each slave's notices and pushes, sends each slave its part, and
// snapshots the pages slaves lack (so that the page server serves this
// region's result; a fetch waits for it).
// ds are the deltas merged, by rank. It returns the bytes sent.
func (r *Region) sendLazy(merged *delta.Delta, ds []*delta.Delta) (int, error) {
	n := r.n
	m := n.lazyM
	tp := time.Now()
	m.changedBuf = appendPages(m.changedBuf[:0], merged, m.ps)
	changed := m.changedBuf
	m.pagesBuf = fillWriters(m.writer, m.pagesBuf, ds, m.ps)
	writer := m.writer
	m.grow(n.size)
	out := m.out
	t0 := time.Now()
	m.mu.Lock()
	if err := m.acceptErr; err != nil {
		m.mu.Unlock()
		return 0, r.fail(fmt.Errorf("lazy transfer: %w", err))
	}
	for s := range out {
		out[s].fetched = m.served[s]
	}
	clear(m.served)
	// Only the slaves that committed this region get its result: a lost
	// one has no delta in ds (see exchangeMaster) and takes no share of
	// the next regions.
	for _, s := range r.committed {
		m.plan(&out[s].plan, s, r.name, changed, writer)
	}
	// The results go out before the snapshot, under mu: a slave's fetch
	// of this region's pages waits for it, and the slave, which starts
	// its next region once it has the notices, waits for nothing.
	t1 := time.Now()
	vals := r.results()
	mem := n.arena.Bytes()[:r.extent]
	var wg sync.WaitGroup
	for _, s := range r.committed {
		send := func() {
			// No node receives its own bytes back.
			o := &out[s]
			o.runs = delta.Exclude(o.runs[:0], merged.Runs, ds[s].Runs)
			pushDelta(&o.push, r.seq, o.runs, o.plan.act, mem, m.ps)
			if o.env, o.err = appendEnvelope(o.env[:0], &o.push, vals, n.compression()); o.err != nil {
				return
			}
			o.payload = appendLazyMerged(o.payload[:0], o.plan.notices, o.env)
			o.size = len(o.payload)
			o.err = n.master.Send(s, transport.Message{Kind: kindMerged, Seq: r.seq, Payload: o.payload})
		}
		// Small results go one after the other from this goroutine: a
		// write returns once the bytes are in the socket buffer, and a
		// goroutine per slave would cost each a thread wake-up.
		if len(r.committed) == 1 || merged.Len() < parallelSendBytes {
			send()
		} else {
			wg.Go(send)
		}
	}
	wg.Wait()
	t2 := time.Now()
	m.snapshot(writer, changed)
	m.version = r.seq
	m.mu.Unlock()
	t3 := time.Now()
	sent := 0
	for _, s := range r.committed {
		o := &out[s]
		sent += o.size
		if m.stats {
			statsf("cape: master: lazy transfer after region %s #%d: node %d: %d bytes sent (%d pages pushed, %d write notices, eager %v), %d bytes of pages fetched since the last exchange; pages %v, plan %v, snapshot %v (%d pages: %d copied, %d compared), send %v\n",
				r.name, r.seq, s, o.size, len(o.plan.act), len(o.plan.notices), o.plan.eager, o.fetched,
				t0.Sub(tp).Round(time.Microsecond), t1.Sub(t0).Round(time.Microsecond), t3.Sub(t2).Round(time.Microsecond), len(m.snap), m.copied, m.compared, t2.Sub(t1).Round(time.Microsecond))
		}
	}
	for _, s := range r.committed {
		// A slave lost while it is sent the result only takes no share of
		// the next regions, if the policy allows.
		if err := out[s].err; err != nil && !n.loseAfterCommit(r, err) {
			return sent, r.fail(err)
		}
	}
	return sent, nil
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
// the runs on actRuns pages, and the whole of actWhole pages from mem (the
// injected arena).
func pushDelta(d *delta.Delta, seq uint64, runs []delta.Run, act map[int]uint8, mem []byte, ps int) {
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
					delta.AppendFull(d, uint64(p*ps), mem[p*ps:(p+1)*ps])
					whole = p
				}
			}
			off, data = off+k, data[k:]
		}
	}
}
