package cape

// The end-of-region exchange under distributed homes (docs/homes.md):
// each slave sends the master a notice (the pages it wrote, and its runs
// on pages it may share with other writers); the master decides the
// homes, merges the pages several nodes wrote (asking a writer for its
// runs where its notice lacks them: collect), and sends every slave a
// release (every written page's holder, the merged runs of the pages it
// co-wrote, the values, and the pages it read after the region's last
// instance, which their holders put in their notices). Other pages go from
// their holder to the node that touches them, through the nodes' helpers.

import (
	"fmt"
	"slices"
	"time"

	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/cape/internal/homes"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// homesPeer is what the master read of one node's notice (and runs).
type homesPeer struct {
	written []wire.PageRange
	pushes  []wire.Push    // the pages it pushes, with their readers
	to      []wire.Push    // the pages pushed to it (no readers)
	entry   map[int][]byte // shared page → its bytes at the region's entry
	runs    []delta.Run    // the node's runs on its shared pages, sorted
	vals    []byte
	d       delta.Delta // scratch: the node's runs on the multi-writer pages
	out     delta.Delta // scratch: what the node is sent
	mine    []int       // scratch: the multi-writer pages the node wrote
	rel     []byte      // scratch: the node's release
}

// homesMerge is the master's storage for a region's homes exchange.
type homesMerge struct {
	peers   []homesPeer
	all     [][]wire.PageRange
	merged  delta.Delta
	ds      []*delta.Delta
	parts   [][]byte
	pending []int
	built   []wire.PageRange // the multi-writer pages the master built (holdMulti)
	// builtPages: scratch, holdMulti's pages before they become ranges.
	builtPages []int
	shared     []int               // the pages whose runs the notices carried (sharedPages)
	msgs       []transport.Message // scratch: the releases, in the order of committed
	errs       []error             // scratch: each release's send error
}

// noticeLimits are the limits a homes payload is checked against.
func (r *Region) noticeLimits() *wire.Limits {
	n := r.n
	return &wire.Limits{Delta: r.limits(), Pages: r.extent / n.homes.ps, PageSize: n.homes.ps, Nodes: n.size}
}

// appendShared appends a shared section of pages with their entry bytes
// (the tracker's twins) and the envelope of the node's runs on them (of
// own) and vals.
func (r *Region) appendShared(dst []byte, pages []int, own *delta.Delta, vals []byte) ([]byte, error) {
	n := r.n
	hs := n.homes
	dst = wire.AppendShared(dst, pages, n.tracker.Twin)
	hs.sub.Reset(r.seq, n.rank)
	homes.Restrict(&hs.sub, own.Runs, pages, hs.ps)
	return wire.AppendEnvelope(dst, &hs.sub, vals, n.compression())
}

// createHomes is Create under distributed homes: it records the pages
// written, and makes d the node's runs on the pages it will share (the
// pages of this region whose runs a collect asked for before). A page
// that one node writes needs no runs: its bytes stay where they are.
func (r *Region) createHomes(d *delta.Delta, pages []int) {
	n := r.n
	hs := n.homes
	hs.written = homes.AppendPageRanges(hs.written[:0], pages)
	hs.shared = hs.shared[:0]
	for _, p := range hs.share[r.name] {
		if homes.Contains(hs.written, p) {
			hs.shared = append(hs.shared, p)
		}
	}
	exchange.Incremental{}.Create(d, n.arena.Bytes(), hs.shared, n.tracker)
}

// exchangeHomesSlave sends the notice, answers collects, and takes the
// release.
func (r *Region) exchangeHomesSlave(d *delta.Delta) (sent, recvd int, err error) {
	n := r.n
	hs := n.homes
	repl, err := r.replicateWritten()
	if err != nil {
		return 0, 0, err
	}
	ts := time.Now()
	hs.pushes = hs.srv.Pushes(hs.written, n.arena.Bytes(), hs.pushes[:0])
	head := wire.AppendPushes(wire.AppendNoticeHead(hs.payload[:0], r.extent/hs.ps, hs.written), hs.pushes)
	p, err := r.appendShared(head, hs.shared, d, r.partials())
	if err != nil {
		return 0, 0, r.fail(err)
	}
	hs.payload = p
	if err := n.slave.Send(transport.Message{Kind: wire.Notice, Seq: r.seq, Payload: p}); err != nil {
		return 0, 0, r.fail(err)
	}
	n.fault("broadcast", r.seq)
	sent = repl + len(p) // the copy to the buddy counts as sent
	t := time.Now()
	if st := r.stats; st != nil {
		// The --stats parts: the notice's send, the wait for the release
		// (and the collects answered meanwhile), taking the release.
		st.sent = t.Sub(ts)
		defer func() { st.merging = time.Since(t) - st.waited }()
	}
	for {
		msg, err := n.slave.Recv()
		if err != nil {
			return sent, recvd, r.fail(err)
		}
		recvd += len(msg.Payload)
		switch {
		case msg.Kind == wire.Collect && msg.Seq == r.seq:
			k, err := r.answerCollect(msg.Payload)
			n.slave.Release(msg.Payload)
			if err != nil {
				return sent, recvd, err
			}
			sent += k
			continue
		case msg.Kind == wire.Live && msg.Seq == r.seq:
			err = n.adoptLive(msg.Payload)
		default:
			if st := r.stats; st != nil {
				st.waited = time.Since(t)
			}
			if err = fromMaster(msg, wire.Release, r.seq); err == nil {
				err = r.applyRelease(msg.Payload, d)
				sent, recvd = sent+hs.h.TakeServed(), recvd+hs.h.TakeFetched()
			}
		}
		n.slave.Release(msg.Payload)
		if err != nil || msg.Kind == wire.Release {
			return sent, recvd, err
		}
	}
}

// answerCollect sends the runs of the pages a collect asks for, and
// remembers to send them with the notices of the region's next instances.
func (r *Region) answerCollect(payload []byte) (int, error) {
	n := r.n
	hs := n.homes
	pages, rest, err := wire.ParsePageList(payload, r.extent/hs.ps, nil)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("%d bytes after the pages", len(rest))
	}
	for _, p := range pages {
		if err == nil && !homes.Contains(hs.written, p) {
			err = fmt.Errorf("page %d, which this node did not write", p)
		}
	}
	if err != nil {
		return 0, r.wrap("collect from the master", err)
	}
	share := hs.share[r.name]
	for _, p := range pages {
		if i, ok := slices.BinarySearch(share, p); !ok {
			share = slices.Insert(share, i, p)
		}
	}
	hs.share[r.name] = share
	// The twins hold the region's entry until the next Start.
	var d delta.Delta
	d.Reset(r.seq, n.rank)
	exchange.Incremental{}.Create(&d, n.arena.Bytes(), pages, n.tracker)
	out, err := r.appendShared(nil, pages, &d, nil)
	if err == nil {
		err = n.slave.Send(transport.Message{Kind: wire.Runs, Seq: r.seq, Payload: out})
	}
	if err != nil {
		return 0, r.fail(err)
	}
	return len(out), nil
}

// applyRelease takes the master's release: values, the merged runs of the
// pages this node co-wrote, then the new holders.
func (r *Region) applyRelease(payload []byte, own *delta.Delta) error {
	n := r.n
	hs := n.homes
	hl, rest, err := wire.ParseHomes(payload, r.extent/hs.ps, n.size, hs.homes)
	if err != nil {
		return r.wrap("release from the master", err)
	}
	hs.homes = hl
	pushed, rest, err := wire.ParsePagePushes(rest, r.extent/hs.ps, hs.ps, hs.pushed)
	if err != nil {
		return r.wrap("release from the master", err)
	}
	hs.pushed = pushed
	md := &hs.in
	vals, err := wire.OpenLabelled(rest, md, r.limits(), r.seq, delta.Merged)
	if err == nil {
		err = r.checkMergedPages(md.Runs, hl)
	}
	if err != nil {
		return r.wrap("release from the master", err)
	}
	if err := r.injectMerged(vals, md, own, md.Apply); err != nil {
		return err
	}
	return r.release(hl)
}

// checkMergedPages checks that the merged runs a release carries lie on
// pages that several nodes wrote, this one among them.
func (r *Region) checkMergedPages(runs []delta.Run, hl []wire.Home) error {
	hs := r.n.homes
	for _, run := range runs {
		if len(run.Data) == 0 {
			continue
		}
		for p := int(run.Off) / hs.ps; p <= int(run.End()-1)/hs.ps; p++ {
			if h, ok := homes.Find(hl, p); !ok || !h.Multi || !homes.Contains(hs.written, p) {
				return fmt.Errorf("merged run on page %d, which this node did not write with others", p)
			}
		}
	}
	return nil
}

// release moves the node to region r's result: every page written in it
// that this node does not hold now (another node wrote it, alone or with
// others but not this one) is dropped, to be fetched from its holder on
// the next touch, or replaced by its bytes where pushed (hs.pushed); the
// page server then serves the pages this node holds as of r.
func (r *Region) release(hl []wire.Home) error {
	n := r.n
	hs := n.homes
	inval := hs.inval[:0]
	pushed := hs.pushed
	for _, h := range hl {
		if h.Holder == n.rank {
			continue
		}
		for p := h.Lo; p < h.Hi; p++ {
			if h.Multi && homes.Contains(hs.written, p) {
				continue // a co-writer: its copy is the merged page
			}
			hs.h.SetHolder(p, h.Holder)
			if len(pushed) > 0 && pushed[0].Page == p {
				if err := hs.install(p, pushed[0].Data, n.arena.Bytes()); err != nil {
					return r.wrap("pushed page", err)
				}
				pushed = pushed[1:]
				continue
			}
			if hs.h.Invalid(p) {
				continue
			}
			hs.h.MarkInvalid(p)
			inval = append(inval, p)
		}
	}
	if len(pushed) > 0 {
		return r.errorf("distributed homes: page %d pushed to this node, which it wrote or no other node wrote in this region", pushed[0].Page)
	}
	hs.inval = inval
	if err := hs.tr.Invalidate(inval); err != nil {
		return r.wrap("distributed homes", err)
	}
	// Update moves the node to version r.seq once the snapshot holds it:
	// the version is the one the node's server answers as of too, so
	// setting it before would serve requests as of r.seq from the
	// snapshot of the version before.
	hs.srv.Update(r.seq, hl, n.arena.Bytes())
	if err := n.setReplicas(); err != nil {
		return r.fail(err)
	}
	return nil
}

// pullAll faults in, on the master after the program's last region, every
// page of the extent that other nodes hold, where no node keeps a replica
// of another's pages (--transfer homes --max-lost 0): the sequential code
// after it then needs no other node, and a slave lost meanwhile cannot
// stop it halfway through what it writes (it stops here, before, if at
// all). With replicas the master fetches only what that code touches: a
// page of a slave lost meanwhile comes from its replica.
func (r *Region) pullAll() { r.n.homes.pullAll(r.n.arena.Bytes(), r.extent) }

// pullAll faults in every page of arena's first extent bytes that another
// node holds (faultIn).
func (hs *homesNode) pullAll(arena []byte, extent int) {
	for p := range extent / hs.ps {
		hs.faultIn(arena, p)
	}
}

// install sets page p of arena to data, a page pushed to this node: a
// page it lacks is installed whole (it would otherwise fault and be
// fetched), one it holds is overwritten, as the write of an injection.
func (hs *homesNode) install(p int, data, arena []byte) error {
	ps := hs.ps
	if hs.h.Invalid(p) {
		ok, err := hs.tr.Install(p, data)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("page %d is marked invalid but present", p)
		}
		hs.h.ClearInvalid(p)
		return nil
	}
	// Announced as an injection's writes are (exchange.Prepare): required,
	// not a cost hint, before a Start the translator proved clean
	// (monitor.Injector), or the page keeps a stale twin and the next
	// region reports it written.
	if inj, ok := hs.tr.(monitor.Injector); ok {
		if err := inj.WillWrite(p*ps, ps); err != nil {
			return err
		}
	}
	copy(arena[p*ps:(p+1)*ps], data)
	return nil
}

// exchangeHomesMaster gathers the notices, decides the homes, merges the
// pages several nodes wrote, sends the releases and takes its own. The
// master's own runs come from its twins where it needs them (Create made
// the delta of its shared pages only, which it does not send).
func (r *Region) exchangeHomesMaster(_ *delta.Delta) (sent, recvd int, err error) {
	n := r.n
	hs := n.homes
	t := time.Now()
	msgs, err := r.gather()
	if err != nil {
		return 0, 0, err
	}
	if st := r.stats; st != nil {
		// The --stats parts as in the eager exchange: the wait for the
		// notices, the decision and merge, the releases.
		st.waited = time.Since(t)
		t = time.Now()
		defer func() { st.sent = time.Since(t) - st.merging }()
	}
	defer func() {
		for _, rank := range r.roster.committed {
			n.master.Release(rank, msgs[rank].Payload)
		}
		for _, k := range hs.keep {
			n.master.Release(k.rank, k.p)
		}
		hs.keep = hs.keep[:0]
	}()
	m := &hs.m
	if len(m.peers) != n.size {
		m.peers, m.all, m.ds = make([]homesPeer, n.size), make([][]wire.PageRange, n.size), make([]*delta.Delta, 0, n.size)
	}
	lim := r.noticeLimits()
	for rank := 1; rank < n.size; rank++ {
		// A lost node's notice is discarded: the master re-ran its units.
		m.peers[rank].forget()
	}
	for _, rank := range r.roster.committed {
		recvd += len(msgs[rank].Payload)
		if err := r.readNotice(rank, msgs[rank].Payload, lim); err != nil {
			return 0, recvd, err
		}
	}
	m.all[0] = hs.written
	for rank := 1; rank < n.size; rank++ {
		m.all[rank] = m.peers[rank].written
	}
	hs.homes = homes.AtMaster(homes.Decide(hs.homes, m.all), r.sharedPages())
	if err := r.adoptLost(); err != nil {
		return 0, recvd, err
	}
	k, err := r.mergeMulti(lim)
	recvd += k
	if err != nil {
		return 0, recvd, err
	}
	r.awaitHash() // the entry hash reads the arena until here
	if err := r.holdMulti(); err != nil {
		return 0, recvd, err
	}
	m.peers[0].pushes = hs.srv.Pushes(hs.written, n.arena.Bytes(), m.peers[0].pushes[:0])
	m.peers[0].pushes = hs.srv.Pushes(m.built, n.arena.Bytes(), m.peers[0].pushes)
	if err := r.routePushes(); err != nil {
		return 0, recvd, err
	}
	m.parts = append(m.parts[:0], r.partials())
	for _, rank := range r.roster.committed {
		m.parts = append(m.parts, m.peers[rank].vals)
	}
	if err := r.combineValues(m.parts); err != nil {
		return 0, recvd, err
	}
	n.announceLive(r.seq)
	if st := r.stats; st != nil {
		st.merging = time.Since(t)
	}
	if sent, err = r.sendReleases(); err != nil {
		return sent, recvd, err
	}
	if err := r.applyOwnMerged(); err != nil {
		return sent, recvd, err
	}
	hs.pushed = m.peers[0].to
	if err := r.release(hs.homes); err != nil {
		return sent, recvd, err
	}
	if r.hints.last && !hs.replicate {
		r.pullAll()
	}
	if err := r.checkPointers(); err != nil {
		return sent, recvd, err
	}
	if r.roster.ro != nil {
		r.roster.ro.report()
	}
	// The pages this node's helper served and fetched since the last
	// exchange count with this one, as on a slave.
	return sent + hs.h.TakeServed(), recvd + hs.h.TakeFetched(), nil
}

// holdMulti makes the master's copy of each page several nodes wrote (it
// is their holder) the merged page. A page the master wrote too is merged
// by applyOwnMerged; any other is built here from the bytes at the
// region's entry that a writer sent with its runs, with the merged runs
// applied, and installed. m.built gets the ranges of the pages built.
func (r *Region) holdMulti() error {
	n := r.n
	hs := n.homes
	m := &hs.m
	built := m.builtPages[:0]
	for _, p := range hs.pages {
		if homes.Contains(m.all[0], p) {
			continue
		}
		entry := r.entryBytes(p, -1)
		if entry == nil {
			return r.errorf("distributed homes: no writer of page %d sent its bytes at the region's entry", p)
		}
		if err := hs.install(p, r.mergedPage(p, entry), n.arena.Bytes()); err != nil {
			return r.wrap("merged page", err)
		}
		built = append(built, p)
	}
	m.builtPages = built
	m.built = homes.AppendPageRanges(m.built[:0], built)
	return nil
}

// sharedPages returns the pages whose runs a notice of this region
// carried, ascending: the master holds them (AtMaster) whether or not
// another node wrote them too, since it can build them from the runs and
// entry bytes, and their writers need not replicate them.
func (r *Region) sharedPages() []int {
	m := &r.n.homes.m
	m.shared = m.shared[:0]
	for _, rank := range r.roster.committed {
		for p := range m.peers[rank].entry {
			m.shared = append(m.shared, p)
		}
	}
	slices.Sort(m.shared)
	m.shared = slices.Compact(m.shared)
	return m.shared
}

// routePushes hands each page a node pushes to its readers' releases,
// after the merge: a page its pusher holds now (it wrote it alone), or a
// page several wrote, from any of its writers or the master (the page is
// then the pusher's bytes with the merged runs applied), to its readers
// other than its writers. Each reader's list is in ascending pages, each
// page once.
func (r *Region) routePushes() error {
	n := r.n
	hs := n.homes
	m := &hs.m
	for rank := range m.peers {
		m.peers[rank].to = m.peers[rank].to[:0]
	}
	for from := range m.peers {
		for _, p := range m.peers[from].pushes {
			h, ok := homes.Find(hs.homes, p.Page)
			if !ok {
				return r.errorf("node %d pushed page %d, which it did not write", from, p.Page)
			}
			if h.Holder != from && !(h.Multi && homes.Contains(m.all[from], p.Page)) {
				continue
			}
			data := p.Data
			if h.Multi {
				data = r.mergedPage(p.Page, p.Data)
			}
			for _, to := range p.Readers {
				if to != from && to != h.Holder && !(h.Multi && homes.Contains(m.all[to], p.Page)) {
					m.peers[to].to = append(m.peers[to].to, wire.Push{Page: p.Page, Data: data})
				}
			}
		}
	}
	for rank := range m.peers {
		pe := &m.peers[rank]
		slices.SortFunc(pe.to, func(a, b wire.Push) int { return a.Page - b.Page })
		pe.to = slices.CompactFunc(pe.to, func(a, b wire.Push) bool { return a.Page == b.Page })
	}
	return nil
}

// mergedPage returns a copy of mine, a writer's page p at the region's
// end, with the region's merged runs on p applied: the page as every
// writer holds it after the release.
func (r *Region) mergedPage(p int, mine []byte) []byte {
	ps := r.n.homes.ps
	out := slices.Clone(mine)
	lo, hi := uint64(p*ps), uint64((p+1)*ps)
	for _, run := range r.n.homes.m.merged.Runs {
		if run.End() <= lo || run.Off >= hi {
			continue
		}
		a, b := max(run.Off, lo), min(run.End(), hi)
		copy(out[a-lo:b-lo], run.Data[a-run.Off:b-run.Off])
	}
	return out
}

// forget clears what the master read of the node's last notice.
func (pe *homesPeer) forget() {
	pe.written, pe.pushes, pe.runs, pe.vals = pe.written[:0], pe.pushes[:0], pe.runs[:0], nil
	clear(pe.entry)
}

// readNotice decodes rank's notice into its homesPeer.
func (r *Region) readNotice(rank int, payload []byte, lim *wire.Limits) error {
	pe := &r.n.homes.m.peers[rank]
	extent, written, rest, err := wire.ParseNoticeHead(payload, lim.Pages, pe.written)
	if len(payload) >= 4 && extent != lim.Pages { // whether or not the ranges fit the master's pages
		return r.wrap(fmt.Sprintf("notice from node %d", rank), arenasDiffer(rank, extent, lim.Pages))
	}
	if err != nil {
		return r.wrap(fmt.Sprintf("notice from node %d", rank), err)
	}
	pe.written = written
	if pe.pushes, rest, err = wire.ParsePushes(rest, lim.Pages, lim.PageSize, lim.Nodes, pe.pushes); err != nil {
		return r.wrap(fmt.Sprintf("notice from node %d", rank), err)
	}
	// pe.entry and pe.runs are empty (forget): readShared fills them.
	vals, err := r.readShared(rank, rest, lim)
	if err != nil {
		return err
	}
	pe.vals = vals
	return nil
}

// arenasDiffer is the error of a region that node rank entered with pages
// of arena in use, the master with mine: their sequential code before it
// did not allocate the same.
func arenasDiffer(rank, pages, mine int) error {
	return fmt.Errorf("the nodes' memory differs: node %d entered this region with %d pages of arena in use, the master with %d: every node runs the program's sequential code, which must take the same path and compute the same on each, and here it allocated differently before this region (a file the program writes and then reads back before a region is written by every node at once, and may be read half-written; an input that differs between hosts; the time, or a process's own random numbers)", rank, pages, mine)
}

// readShared decodes a shared section and its envelope from rank (a
// notice's or a runs message's) into its homesPeer, and returns the
// envelope's values.
func (r *Region) readShared(rank int, p []byte, lim *wire.Limits) ([]byte, error) {
	pe := &r.n.homes.m.peers[rank]
	pages, entries, rest, err := wire.ParseShared(p, lim.Pages, lim.PageSize, nil)
	var d delta.Delta
	var vals []byte
	if err == nil {
		vals, err = wire.OpenLabelled(rest, &d, lim.Delta, r.seq, rank)
	}
	if err == nil {
		err = wire.RunsOnPages(d.Runs, pages, lim.PageSize)
	}
	for _, pg := range pages {
		if err == nil && !homes.Contains(pe.written, pg) {
			err = fmt.Errorf("shared page %d, which the node did not write", pg)
		}
	}
	if err != nil {
		return nil, r.wrap(fmt.Sprintf("notice from node %d", rank), err)
	}
	if pe.entry == nil {
		pe.entry = map[int][]byte{}
	}
	for i, pg := range pages {
		pe.entry[pg] = entries[i*lim.PageSize : (i+1)*lim.PageSize]
	}
	pe.runs = append(pe.runs, d.Runs...)
	slices.SortFunc(pe.runs, func(a, b delta.Run) int { return int(a.Off) - int(b.Off) })
	return vals, nil
}

// mergeMulti merges the runs of the pages several nodes wrote into
// hs.m.merged, first collecting the runs a writer's notice lacked; a
// conflict is the error naming both nodes, as in the eager exchange. It
// returns the bytes collected.
func (r *Region) mergeMulti(lim *wire.Limits) (int, error) {
	n := r.n
	hs := n.homes
	m := &hs.m
	multi := homes.AppendMulti(hs.pages[:0], hs.homes)
	hs.pages = multi
	m.merged.Reset(r.seq, delta.Merged)
	if len(multi) == 0 {
		return 0, nil
	}
	recvd, err := r.collect(multi, lim)
	if err != nil {
		return recvd, err
	}
	m.ds = m.ds[:0]
	for rank := range n.size {
		pe := &m.peers[rank]
		pe.mine = pe.mine[:0]
		for _, p := range multi {
			if homes.Contains(m.all[rank], p) {
				pe.mine = append(pe.mine, p)
			}
		}
		pe.d.Reset(r.seq, rank)
		if len(pe.mine) == 0 {
			continue
		}
		if rank == 0 {
			// The master's own runs, against its twins (the region's entry
			// until the next Start).
			exchange.Incremental{}.Create(&pe.d, n.arena.Bytes(), pe.mine, n.tracker)
		} else {
			homes.Restrict(&pe.d, pe.runs, pe.mine, hs.ps)
		}
		m.ds = append(m.ds, &pe.d)
	}
	base := delta.PagedBase(hs.ps, func(p int) []byte { return r.entryBytes(p, -1) })
	if err := delta.MergeRuleInto(&m.merged, r.seq, base, r.mergeRule(), m.ds...); err != nil {
		return recvd, r.mergeError(err)
	}
	return recvd, nil
}

// collect asks every slave that wrote a page of multi without sending its
// runs for them, and reads the answers. A slave lost since its notice
// cannot answer: its runs come from its replica (runsFromReplica).
func (r *Region) collect(multi []int, lim *wire.Limits) (int, error) {
	n := r.n
	m := &n.homes.m
	var asked, gone []int
	var causes []error
	for rank := 1; rank < n.size; rank++ {
		pending := r.lacking(rank, multi, m.pending[:0])
		m.pending = pending
		if len(pending) == 0 {
			continue
		}
		if err := n.master.Send(rank, transport.Message{Kind: wire.Collect, Seq: r.seq, Payload: wire.AppendPageList(nil, pending)}); err != nil {
			gone, causes = append(gone, rank), append(causes, err)
			continue
		}
		asked = append(asked, rank)
	}
	recvd := 0
	for _, rank := range asked {
		msg, err := r.roster.ro.awaitRuns(rank)
		if err != nil {
			gone, causes = append(gone, rank), append(causes, err)
			continue
		}
		if err := wire.FromSlave(msg, rank, r.seq, false, wire.Runs); err != nil {
			return recvd, r.fail(err)
		}
		recvd += len(msg.Payload)
		// The runs alias the payload until the region's exchange ends.
		r.n.homes.keep = append(r.n.homes.keep, keptPayload{rank, msg.Payload})
		if _, err := r.readShared(rank, msg.Payload, lim); err != nil {
			return recvd, err
		}
		if p := r.lacking(rank, multi, m.pending[:0]); len(p) > 0 {
			return recvd, r.errorf("node %d did not send its runs of page %d when asked", rank, p[0])
		}
	}
	for i, rank := range gone {
		if err := r.runsFromReplica(rank, r.lacking(rank, multi, nil), causes[i]); err != nil {
			return recvd, err
		}
	}
	return recvd, nil
}

// lacking appends to out the pages of multi that rank wrote without
// sending its runs.
func (r *Region) lacking(rank int, multi, out []int) []int {
	pe := &r.n.homes.m.peers[rank]
	for _, p := range multi {
		if _, ok := pe.entry[p]; !ok && homes.Contains(pe.written, p) {
			out = append(out, p)
		}
	}
	return out
}

// runsFromReplica reads the runs of pages, which rank wrote with other
// nodes and was lost (cause) before it sent them, from its replica at its
// buddy: the page as rank wrote it, diffed against its bytes at the
// region's entry (another writer's, or the master's twin). The node sent
// its replica before its notice, so the replica holds this region's
// version.
func (r *Region) runsFromReplica(rank int, pages []int, cause error) error {
	n := r.n
	hs := n.homes
	pe := &hs.m.peers[rank]
	at := hs.replicaAt(n.members.Live, rank)
	if !hs.replicate || at < 0 {
		return r.wrap(fmt.Sprintf("node %d, asked for its runs", rank), cause)
	}
	if pe.entry == nil {
		pe.entry = map[int][]byte{}
	}
	for _, p := range pages {
		entry := r.entryBytes(p, rank)
		if entry == nil {
			return r.wrap(fmt.Sprintf("node %d, asked for its runs", rank), fmt.Errorf("%w; no other writer sent page %d's bytes at the region's entry", cause, p))
		}
		page, err := hs.h.ReplicaPage(rank, p, r.seq, at)
		if err != nil {
			return r.wrap(fmt.Sprintf("node %d, asked for its runs", rank), fmt.Errorf("%w; from its replica: %w", cause, err))
		}
		var d delta.Delta
		d.Reset(r.seq, rank)
		delta.Diff(&d, uint64(p*hs.ps), page, entry)
		pe.entry[p] = entry
		pe.runs = append(pe.runs, d.Runs...)
	}
	slices.SortFunc(pe.runs, func(a, b delta.Run) int { return int(a.Off) - int(b.Off) })
	notice("cape: master: %s: node %d, lost after its notice, did not send its runs of %d pages written with other nodes: read from its replica at node %d\n", r.label(), rank, len(pages), at)
	return nil
}

// entryBytes returns page p's bytes at the region's entry, as the master's
// twin (if it wrote p) or a writer other than skip sent them, or nil.
func (r *Region) entryBytes(p, skip int) []byte {
	n := r.n
	m := &n.homes.m
	if homes.Contains(m.all[0], p) {
		return n.tracker.Twin(p)
	}
	for rank := 1; rank < n.size; rank++ {
		if e, ok := m.peers[rank].entry[p]; ok && rank != skip {
			return e
		}
	}
	return nil
}

// sendReleases sends each committed slave its release: the homes, the
// merged runs of the pages it co-wrote less its own bytes, the values.
func (r *Region) sendReleases() (int, error) {
	n := r.n
	hs := n.homes
	m := &hs.m
	vals := r.results()
	sent := 0
	m.msgs, m.errs = m.msgs[:0], m.errs[:0]
	for _, rank := range r.roster.committed {
		pe := &m.peers[rank]
		pe.out.Reset(r.seq, delta.Merged)
		if len(pe.mine) > 0 && len(m.merged.Runs) > 0 {
			hs.sub.Reset(r.seq, delta.Merged)
			homes.Restrict(&hs.sub, m.merged.Runs, pe.mine, hs.ps)
			pe.out.Runs = delta.Exclude(pe.out.Runs[:0], hs.sub.Runs, pe.d.Runs)
		}
		// Each slave's release has a buffer of its own: they may be
		// written concurrently.
		head := wire.AppendPagePushes(wire.AppendHomes(pe.rel[:0], hs.homes), pe.to)
		p, err := wire.AppendEnvelope(head, &pe.out, vals, n.compression())
		if err != nil {
			return sent, r.fail(err)
		}
		pe.rel = p
		m.msgs = append(m.msgs, transport.Message{Kind: wire.Release, Seq: r.seq, Payload: p})
		m.errs = append(m.errs, nil)
	}
	n.sendAll(r.roster.committed, m.msgs, m.errs)
	for i, err := range m.errs {
		// A slave lost while it is sent the release (the region is
		// committed) only takes no share of the next regions, if the
		// policy allows; its pages are adopted at the next region's end.
		if err != nil && !n.loseAfterCommit(r, err) {
			return sent, r.fail(err)
		}
		if err == nil {
			sent += len(m.msgs[i].Payload)
		}
	}
	return sent, nil
}

// applyOwnMerged writes into the master's arena the merged runs of the
// pages it co-wrote, less its own bytes.
func (r *Region) applyOwnMerged() error {
	n := r.n
	hs := n.homes
	m := &hs.m
	pe := &m.peers[0]
	if len(m.merged.Runs) == 0 || len(pe.mine) == 0 {
		return nil
	}
	hs.sub.Reset(r.seq, delta.Merged)
	homes.Restrict(&hs.sub, m.merged.Runs, pe.mine, hs.ps)
	pe.out.Reset(r.seq, delta.Merged)
	pe.out.Runs = delta.Exclude(pe.out.Runs[:0], hs.sub.Runs, pe.d.Runs)
	if err := n.willInject(&pe.out); err != nil {
		return r.wrap("merged delta", err)
	}
	if err := pe.out.Apply(n.arena.Bytes()[:r.extent]); err != nil {
		return r.wrap("merged delta", err)
	}
	return nil
}
