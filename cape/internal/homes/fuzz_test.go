package homes

import (
	"slices"
	"testing"

	"github.com/cape-go/cape/delta"
)

// FuzzDirectory feeds the directory random but well-formed event sequences
// (regions, first touches, writes, notices, collected runs, replicas
// confirmed, lost slaves) and carries its actions out on a model of the
// nodes' memories, checking after every step that:
//
//   - a page past version 0 has exactly one holder, live and among the
//     nodes the directory says hold it;
//   - every node that the directory says holds a page holds its current
//     version, and no node holds a page the directory does not list (so no
//     node ever reads a stale version);
//   - every transfer comes from a node (or replica) that holds the version
//     sent;
//   - every page a node holds has the bytes one machine running the same
//     regions in order would have: multiple-writer pages merged byte-exact;
//   - no well-formed event is refused, and no conflict arises (the model's
//     writers write disjoint bytes).
func FuzzDirectory(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0x12, 0x22, 0x32, 0x13, 0x23, 3, 0x13, 0x23, 0x33, 0, 0x11, 0x22, 3, 0x13, 0x23, 0x33, 4, 5})
	f.Add([]byte{4, 0, 0x42, 0x52, 0x53, 0x63, 0x43, 0x14, 0x05, 0x0a, 0x1b, 0x2c, 3, 0x34})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 1 {
			return
		}
		m := newModel(t, 2+int(prog[0])%4)
		for i := 1; i+1 < len(prog) && !m.stopped; i += 2 {
			m.op(prog[i], prog[i+1])
		}
	})
}

const fuzzPages, fuzzPageSize = 8, 16

// page is a page's content in the model.
type page [fuzzPageSize]byte

// model is the nodes' memories as the directory's actions leave them.
type model struct {
	t        *testing.T
	d        *Dir
	live     []bool
	mem      []map[Page]uint64        // by rank: resident pages and their version
	bytes    []map[Page]*page         // by rank: resident pages' content
	store    []map[Page]uint64        // by rank: replicas it keeps
	stored   []map[Page]*page         // by rank: the replicas' content
	sent     map[uint64]map[Page]page // a holder's pages at each version replicated
	truth    map[Page]*page           // what one machine would hold
	repl     []Action                 // Replicate actions not confirmed yet
	open     bool
	seq      uint64
	noticed  []bool
	writes   []map[Page]bool // by rank: pages written in the open region
	withRuns []bool          // by rank: its notice sent its runs
	stopped  bool
}

func newModel(t *testing.T, n int) *model {
	d, err := New(Config{Nodes: n, PageSize: fuzzPageSize})
	if err != nil {
		t.Fatal(err)
	}
	m := &model{t: t, d: d, live: make([]bool, n), noticed: make([]bool, n), withRuns: make([]bool, n),
		truth: map[Page]*page{}, sent: map[uint64]map[Page]page{}}
	for r := range n {
		m.live[r] = true
		m.mem = append(m.mem, map[Page]uint64{})
		m.bytes = append(m.bytes, map[Page]*page{})
		m.store = append(m.store, map[Page]uint64{})
		m.stored = append(m.stored, map[Page]*page{})
		m.writes = append(m.writes, map[Page]bool{})
	}
	return m
}

// op runs one operation chosen by a and b.
func (m *model) op(a, b byte) {
	node, page := int(b)%len(m.live), Page(b>>4)%fuzzPages
	if !m.live[node] {
		node = 0
	}
	switch a % 7 {
	case 0:
		if !m.open {
			m.seq++
			m.step(Event{Kind: Begin, Seq: m.seq, Site: int(a>>3) % 3})
			m.open = true
			clear(m.noticed)
		}
	case 1:
		if _, ok := m.mem[node][page]; !ok {
			m.step(Event{Kind: Touch, Node: node, Page: page})
		}
	case 2, 3:
		if m.open && !m.noticed[node] {
			m.write(node, page)
		}
	case 4:
		if m.open && !m.noticed[node] {
			m.notice(node, a&0x80 != 0)
		}
	case 5:
		if len(m.repl) > 0 {
			r := m.repl[0]
			m.repl = m.repl[1:]
			if m.live[r.To[0]] {
				m.step(Event{Kind: Replicated, Node: r.To[0], From: r.From, Seq: r.Version, Pages: r.Pages})
			}
		}
	case 6:
		if node != 0 && a&0x70 == 0x70 {
			m.step(Event{Kind: Lost, Node: node})
		}
	}
}

// write has node write page, touching it first if it lacks it.
func (m *model) write(node int, page Page) {
	if _, ok := m.mem[node][page]; !ok {
		m.step(Event{Kind: Touch, Node: node, Page: page})
	}
	m.writes[node][page] = true
}

// value is what node writes in the open region: one byte at offset node
// of each page it writes, disjoint from every other node's.
func (m *model) value(node int) byte { return byte(m.seq*5) + byte(node) + 1 }

// runsOf is node's write on p as a run, with the byte under it at entry.
func (m *model) runsOf(node int, p Page) Write {
	return Write{Page: p, Runs: []delta.Run{{Off: uint64(p*fuzzPageSize + node), Data: []byte{m.value(node)}}},
		Entry: [][]byte{{m.bytes[node][p][node]}}}
}

func (m *model) notice(node int, withRuns bool) {
	var ws []Write
	for _, p := range sortedKeys(m.writes[node]) {
		w := Write{Page: p}
		if withRuns {
			w = m.runsOf(node, p)
		}
		ws = append(ws, w)
	}
	m.noticed[node], m.withRuns[node] = true, withRuns
	m.step(Event{Kind: Notice, Node: node, Writes: ws, Values: []byte{byte(node)}})
}

// step feeds ev, carries out the actions and checks the invariants.
func (m *model) step(ev Event) {
	m.t.Helper()
	if ev.Kind == Lost {
		m.live[ev.Node], m.mem[ev.Node], m.store[ev.Node] = false, map[Page]uint64{}, map[Page]uint64{}
		m.bytes[ev.Node], m.stored[ev.Node] = map[Page]*page{}, map[Page]*page{}
		m.writes[ev.Node] = map[Page]bool{}
		m.repl = slices.DeleteFunc(m.repl, func(a Action) bool { return a.From == ev.Node || a.To[0] == ev.Node })
	}
	acts := slices.Clone(m.d.Step(ev))
	if slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == Release }) {
		m.applyWrites()
	}
	if ev.Kind == Replicated {
		for _, p := range ev.Pages {
			c := m.sent[ev.Seq][p]
			m.store[ev.Node][p], m.stored[ev.Node][p] = ev.Seq, &c
		}
	}
	var collects []Action
	for _, a := range acts {
		if a.Kind == Collect {
			collects = append(collects, a)
			continue
		}
		m.apply(ev, a)
	}
	m.check()
	for _, c := range collects {
		var ws []Write
		for _, p := range c.Pages {
			ws = append(ws, m.runsOf(c.Node, p))
		}
		m.step(Event{Kind: Runs, Node: c.Node, Writes: ws})
	}
}

// applyWrites makes the writers of the region being released hold the
// region's version of the pages they wrote, with their own writes (the
// others' come with Merged), and applies every write to the truth.
func (m *model) applyWrites() {
	for r, ws := range m.writes {
		if m.live[r] {
			for p := range ws {
				m.mem[r][p] = m.seq
				m.bytes[r][p][r] = m.value(r)
				if m.truth[p] == nil {
					m.truth[p] = new(page)
				}
				m.truth[p][r] = m.value(r)
			}
		}
		clear(ws)
	}
	m.open = false
}

// copyPage sets dst's content of p to src's.
func copyPage(dst map[Page]*page, src *page, p Page) {
	c := *src
	dst[p] = &c
}

// holds checks that node holds page at ver, in memory or as a replica.
func (m *model) holds(what string, node int, page Page, ver uint64, replica bool) {
	m.t.Helper()
	src := m.mem
	if replica {
		src = m.store
	}
	if v, ok := src[node][page]; !m.live[node] || !ok || v != ver {
		m.t.Fatalf("%s: node %d (live %v) holds page %d at version %d (%v), want %d", what, node, m.live[node], page, v, ok, ver)
	}
}

func (m *model) apply(ev Event, a Action) {
	m.t.Helper()
	switch a.Kind {
	case Fetch:
		m.mem[a.Node][a.Page] = a.Version
		if a.Zero {
			m.bytes[a.Node][a.Page] = new(page)
			break
		}
		m.holds("fetch", a.From, a.Page, a.Version, false)
		copyPage(m.bytes[a.Node], m.bytes[a.From][a.Page], a.Page)
	case Merged:
		for _, r := range a.To {
			m.mem[r][a.Page] = a.Version
			for _, x := range a.Delta.Runs {
				copy(m.bytes[r][a.Page][x.Off-uint64(a.Page*fuzzPageSize):], x.Data)
			}
		}
	case Invalidate:
		for _, p := range a.Pages {
			if _, ok := m.mem[a.Node][p]; !ok {
				m.t.Fatalf("invalidate: node %d does not hold page %d", a.Node, p)
			}
			delete(m.mem[a.Node], p)
			delete(m.bytes[a.Node], p)
		}
	case Push:
		m.holds("push", a.From, a.Page, a.Version, false)
		m.mem[a.To[0]][a.Page] = a.Version
		copyPage(m.bytes[a.To[0]], m.bytes[a.From][a.Page], a.Page)
	case Replicate:
		if m.sent[a.Version] == nil {
			m.sent[a.Version] = map[Page]page{}
		}
		for _, p := range a.Pages {
			m.holds("replicate", a.From, p, a.Version, false)
			m.sent[a.Version][p] = *m.bytes[a.From][p]
		}
		m.repl = append(m.repl, a)
	case Discard:
		// The master re-runs the lost node's units and notices again.
		m.noticed[0] = false
	case Rehome:
		m.holds("rehome", a.Node, a.Page, a.Version, false)
	case Recover:
		m.holds("recover", a.From, a.Page, a.Version, true)
		m.mem[a.From][a.Page] = a.Version
		copyPage(m.bytes[a.From], m.stored[a.From][a.Page], a.Page)
	case Rollback:
		m.stopped = true
	case Conflict, Error:
		m.t.Fatalf("%+v: %v", ev, a.Err)
	}
}

// check checks the directory against the model's memories.
func (m *model) check() {
	m.t.Helper()
	if m.stopped {
		return
	}
	for _, p := range m.d.Pages() {
		ver, holder, copies := m.d.Version(p)
		if ver == 0 && holder != ZeroHome || ver > 0 && !slices.Contains(copies, holder) {
			m.t.Fatalf("page %d v%d: holder %d, copies %v", p, ver, holder, copies)
		}
		for _, c := range copies {
			m.holds("copy", c, p, ver, false)
		}
	}
	for r, mem := range m.mem {
		for p := range mem {
			if _, _, copies := m.d.Version(p); !slices.Contains(copies, r) {
				m.t.Fatalf("node %d holds page %d at version %d, which the directory does not list (copies %v)", r, p, mem[p], copies)
			}
			want := m.truth[p]
			if want == nil {
				want = new(page)
			}
			if got := m.bytes[r][p]; *got != *want {
				m.t.Fatalf("node %d holds page %d as %x, one machine would hold %x", r, p, *got, *want)
			}
		}
	}
}
