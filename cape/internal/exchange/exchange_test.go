package exchange

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cape-go/cape/delta"
)

const pageSize = 16

// twins is the entry state of an arena, page by page (a fake monitor).
type twins []byte

func (t twins) PageSize() int { return pageSize }
func (t twins) Twin(p int) []byte {
	return t[p*pageSize : (p+1)*pageSize]
}

// entry returns an arena of size bytes with a recognisable content.
func entry(size int) twins {
	e := make(twins, size)
	for i := range e {
		e[i] = byte(i*7 + 1)
	}
	return e
}

// writes are a node's writes in a region: offset → value.
type writes map[int]byte

// after returns e with w applied.
func after(e []byte, w writes) []byte {
	mem := bytes.Clone(e)
	for off, v := range w {
		mem[off] = v
	}
	return mem
}

// dirty returns the pages w touches, in order.
func dirty(w writes) []int {
	var pages []int
	for off := range w {
		if p := off / pageSize; !slices.Contains(pages, p) {
			pages = append(pages, p)
		}
	}
	slices.Sort(pages)
	return pages
}

// words is the number of bytes of the 8-byte words w writes in.
func words(w writes) int {
	var ws []int
	for off := range w {
		if !slices.Contains(ws, off/8) {
			ws = append(ws, off/8)
		}
	}
	return 8 * len(ws)
}

// created is the delta a node of rank rank makes in mode m for w.
func created(t *testing.T, m Mode, e twins, seq uint64, rank int, w writes) *delta.Delta {
	t.Helper()
	d := &delta.Delta{}
	d.Reset(seq, rank)
	m.Create(d, after(e, w), dirty(w), e)
	return d
}

// received returns the master's delta of nodes[0] and a Master holding
// the deltas of the slaves, nodes[1:], as if decoded (In) and received
// (Deltas), each with its rank as its values (Parts).
func received(t *testing.T, e twins, seq uint64, nodes []writes) (*Master, *delta.Delta) {
	t.Helper()
	m := &Master{}
	m.Grow(len(nodes))
	own := created(t, Incremental{}, e, seq, 0, nodes[0])
	for rank := 1; rank < len(nodes); rank++ {
		m.In[rank] = *created(t, Incremental{}, e, seq, rank, nodes[rank])
		m.Deltas[rank] = Incremental{}.Received(&m.In[rank], e)
		m.Parts[rank] = []byte{byte(rank)}
	}
	return m, own
}

// apply returns mem with d applied.
func apply(t *testing.T, mem []byte, d *delta.Delta) []byte {
	t.Helper()
	mem = bytes.Clone(mem)
	if err := d.Apply(mem); err != nil {
		t.Fatal(err)
	}
	return mem
}

func TestMerge(t *testing.T) {
	const size, seq = 4 * pageSize, 9
	tests := []struct {
		name      string
		nodes     []writes // by rank; the master's at 0
		committed []int
		want      writes // the merged result; nil with a conflict
		conflict  [2]int // the nodes of the conflict, in rank order
	}{
		{name: "disjoint", nodes: []writes{{0: 1, 1: 2}, {20: 3}, {40: 4, 63: 5}},
			committed: []int{1, 2}, want: writes{0: 1, 1: 2, 20: 3, 40: 4, 63: 5}},
		{name: "one page, different bytes", nodes: []writes{{16: 1}, {17: 2}, {30: 3}},
			committed: []int{1, 2}, want: writes{16: 1, 17: 2, 30: 3}},
		{name: "same value twice", nodes: []writes{{5: 0xaa}, {5: 0xaa, 6: 1}},
			committed: []int{1}, want: writes{5: 0xaa, 6: 1}},
		{name: "lost slave not merged", nodes: []writes{{0: 9}, {8: 8}, {9: 7}},
			committed: []int{2}, want: writes{0: 9, 9: 7}},
		{name: "conflict between slaves", nodes: []writes{{0: 1}, {33: 2}, {33: 3}},
			committed: []int{1, 2}, conflict: [2]int{1, 2}},
		{name: "conflict with the master", nodes: []writes{{50: 1}, {3: 3}, {50: 2}},
			committed: []int{1, 2}, conflict: [2]int{0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entry(size)
			m, own := received(t, e, seq, tt.nodes)
			base := delta.PagedBase(pageSize, e.Twin)
			merged, parts, err := m.Merge(seq, base, own, []byte{0}, tt.committed, delta.Rule{})
			if tt.want == nil {
				ce, ok := Conflict(err)
				if !ok {
					t.Fatalf("Merge: %v, want a conflict", err)
				}
				if ce.NodeA != tt.conflict[0] || ce.NodeB != tt.conflict[1] {
					t.Errorf("conflict between %d and %d, want %d and %d", ce.NodeA, ce.NodeB, tt.conflict[0], tt.conflict[1])
				}
				for _, node := range []string{fmt.Sprintf("node %d", tt.conflict[1])} {
					if !bytes.Contains([]byte(err.Error()), []byte(node)) {
						t.Errorf("error %q does not name %s", err, node)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if merged.Region != seq || merged.Node != delta.Merged {
				t.Errorf("merged is region %d node %d", merged.Region, merged.Node)
			}
			if got, want := apply(t, e, merged), after(e, tt.want); !bytes.Equal(got, want) {
				t.Errorf("merged result\n got %x\nwant %x", got, want)
			}
			wantParts := [][]byte{{0}}
			for _, rank := range tt.committed {
				wantParts = append(wantParts, []byte{byte(rank)})
			}
			if !slices.EqualFunc(parts, wantParts, bytes.Equal) {
				t.Errorf("parts %v, want %v", parts, wantParts)
			}
			m.Release(tt.committed)
			if m.Merged.Len() != 0 || slices.ContainsFunc(m.live, func(d *delta.Delta) bool { return d != nil }) {
				t.Error("Release left the merged delta or the live table holding runs")
			}
			for _, rank := range tt.committed {
				if m.In[rank].Len() != 0 || m.Parts[rank] != nil {
					t.Errorf("Release left rank %d's delta or values", rank)
				}
			}
		})
	}
}

func TestLessOwn(t *testing.T) {
	const size, seq = 4 * pageSize, 3
	tests := []struct {
		name  string
		nodes []writes
		last  bool
	}{
		{name: "disjoint", nodes: []writes{{0: 1}, {20: 2, 21: 3}, {40: 4}}},
		{name: "shared page", nodes: []writes{{16: 1}, {17: 2, 18: 3}, {19: 4, 31: 5}}},
		{name: "same bytes", nodes: []writes{{5: 9}, {5: 9, 6: 8}, {6: 8, 7: 7}}},
		{name: "last region", nodes: []writes{{0: 1}, {20: 2}, {40: 4}}, last: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entry(size)
			m, own := received(t, e, seq, tt.nodes)
			committed := []int{}
			want := writes{}
			for rank, w := range tt.nodes {
				for off, v := range w {
					want[off] = v
				}
				if rank > 0 {
					committed = append(committed, rank)
				}
			}
			if _, _, err := m.Merge(seq, delta.PagedBase(pageSize, e.Twin), own, nil, committed, delta.Rule{}); err != nil {
				t.Fatal(err)
			}
			total := m.LessOwn(seq, committed, tt.last)
			sum := 0
			for _, rank := range committed {
				o := &m.Out[rank]
				sum += o.Len()
				if o.Region != seq || o.Node != delta.Merged {
					t.Errorf("rank %d: out is region %d node %d", rank, o.Region, o.Node)
				}
				if tt.last {
					if o.Len() != 0 {
						t.Errorf("rank %d: %d bytes after the last region, want none", rank, o.Len())
					}
					continue
				}
				// The slave's arena, once it injects what it is sent, is
				// the merged result, and it received no byte it wrote.
				mine := after(e, tt.nodes[rank])
				if got := apply(t, mine, o); !bytes.Equal(got, after(e, want)) {
					t.Errorf("rank %d: arena after injection\n got %x\nwant %x", rank, got, after(e, want))
				}
				for _, run := range o.Runs {
					for i := range run.Data {
						if v, ok := tt.nodes[rank][int(run.Off)+i]; ok && v == run.Data[i] {
							t.Errorf("rank %d is sent its own byte at %d", rank, int(run.Off)+i)
						}
					}
				}
			}
			if total != sum {
				t.Errorf("LessOwn returned %d bytes, the deltas hold %d", total, sum)
			}
			m.ReleaseOut(committed)
			for _, rank := range committed {
				if len(m.Out[rank].Runs) != 0 {
					t.Errorf("ReleaseOut left rank %d's runs", rank)
				}
			}
		})
	}
}

func TestModes(t *testing.T) {
	const size, seq = 4 * pageSize, 5
	w := writes{1: 0xf0, 17: 0xf1, 18: 0xf2}
	tests := []struct {
		name      string
		mode      Mode
		broadcast bool
		fullPages bool // Create sends the dirty pages whole
	}{
		{"incremental master", NewMode(false, false), false, false},
		{"incremental slave", NewMode(false, true), false, false},
		{"complete master", NewMode(true, false), true, false},
		{"complete slave", NewMode(true, true), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entry(size)
			mem := after(e, w)
			d := created(t, tt.mode, e, seq, 1, w)
			wantLen := words(w) // Diff's runs are whole words
			if tt.fullPages {
				wantLen = len(dirty(w)) * pageSize
			}
			if d.Len() != wantLen {
				t.Errorf("Create: %d bytes, want %d", d.Len(), wantLen)
			}
			if got := apply(t, e, d); !bytes.Equal(got, mem) {
				t.Errorf("Create's delta does not rebuild the arena")
			}
			// Received: the bytes the slave changed, whatever it sent.
			r := tt.mode.Received(d, e)
			if r.Len() != words(w) || r.Node != 1 || r.Region != seq {
				t.Errorf("Received: %d bytes of node %d region %d, want %d of node 1 region %d", r.Len(), r.Node, r.Region, words(w), seq)
			}
			if got := apply(t, e, r); !bytes.Equal(got, mem) {
				t.Errorf("Received's delta does not rebuild the arena")
			}
			if tt.mode.BroadcastAll() != tt.broadcast {
				t.Errorf("BroadcastAll = %v, want %v", !tt.broadcast, tt.broadcast)
			}
			merged := &delta.Delta{}
			if err := delta.MergeBaseInto(merged, seq, delta.PagedBase(pageSize, e.Twin), r); err != nil {
				t.Fatal(err)
			}
			out := tt.mode.Outgoing(merged, mem)
			switch {
			case !tt.broadcast && out != merged:
				t.Errorf("Outgoing is not the merged delta")
			case tt.broadcast && (out.Len() != size || out.Node != delta.Merged || out.Region != seq):
				t.Errorf("Outgoing: %d bytes of node %d region %d, want the whole extent (%d) as the merged delta of region %d", out.Len(), out.Node, out.Region, size, seq)
			}
			if got := apply(t, e, out); !bytes.Equal(got, mem) {
				t.Errorf("Outgoing's delta does not rebuild the arena")
			}
		})
	}
}

func TestLimits(t *testing.T) {
	for _, extent := range []int{0, 1, 4096, 1 << 20} {
		l := Limits(extent)
		if l.MaxBytes != int64(extent) || l.MaxRuns != extent/2+1 || l.ArenaSize != uint64(extent) {
			t.Errorf("Limits(%d) = %+v", extent, l)
		}
	}
}

func TestConflict(t *testing.T) {
	ce := &delta.ConflictError{Region: 2, Offset: 10, NodeA: 3, NodeB: 1, ValueA: 0xa, ValueB: 0xb}
	tests := []struct {
		err  error
		ok   bool
		want delta.ConflictError
	}{
		{ce, true, delta.ConflictError{Region: 2, Offset: 10, NodeA: 1, NodeB: 3, ValueA: 0xb, ValueB: 0xa}},
		{fmt.Errorf("merge: %w", &delta.ConflictError{NodeA: 0, NodeB: 2, ValueA: 1, ValueB: 2}), true,
			delta.ConflictError{NodeA: 0, NodeB: 2, ValueA: 1, ValueB: 2}},
		{errors.New("other"), false, delta.ConflictError{}},
		{nil, false, delta.ConflictError{}},
	}
	for i, tt := range tests {
		got, ok := Conflict(tt.err)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%d: Conflict(%v) = %+v, %v; want %+v, %v", i, tt.err, got, ok, tt.want, tt.ok)
		}
	}
}

func TestGrow(t *testing.T) {
	var m Master
	m.Grow(3)
	m.Parts[2] = []byte{1}
	m.Grow(3) // same size: kept
	if m.Parts[2] == nil {
		t.Error("Grow to the same size dropped the tables")
	}
	m.Grow(5)
	if len(m.In) != 5 || len(m.Out) != 5 || len(m.Deltas) != 5 || len(m.Parts) != 5 || m.Parts[2] != nil {
		t.Errorf("Grow(5): tables of %d %d %d %d", len(m.In), len(m.Out), len(m.Deltas), len(m.Parts))
	}
}

// TestMergeAllocations checks that a Master, once grown, merges and
// excludes without allocating.
func TestMergeAllocations(t *testing.T) {
	const size, seq = 4 * pageSize, 1
	e := entry(size)
	own := created(t, Incremental{}, e, seq, 0, writes{0: 1, 17: 2})
	var m Master
	m.Grow(3)
	in := []*delta.Delta{nil, created(t, Incremental{}, e, seq, 1, writes{18: 3}), created(t, Incremental{}, e, seq, 2, writes{40: 4})}
	committed := []int{1, 2}
	base := delta.PagedBase(pageSize, e.Twin)
	round := func() {
		for _, rank := range committed {
			m.Deltas[rank] = in[rank]
		}
		if _, _, err := m.Merge(seq, base, own, nil, committed, delta.Rule{}); err != nil {
			t.Fatal(err)
		}
		m.LessOwn(seq, committed, false)
		m.ReleaseOut(committed)
		m.Release(committed)
	}
	round()
	if a := testing.AllocsPerRun(10, round); a != 0 {
		t.Errorf("a merge allocates %v times, want 0", a)
	}
}
