package lazy

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/cape-go/cape/delta"
)

// TestPlan checks the master's choice of notices and pushes: a page
// only the slave wrote is neither; a page others changed is a notice the
// first time (the slave then lacks it) and nothing while it lacks it; a
// page the slave fetched after the region's notice is pushed at its next
// instance, whole where the slave lacks it; and a slave that read most of
// what changed gets everything.
func TestPlan(t *testing.T) {
	const ps = 16
	mem := make([]byte, 8*ps)
	for i := range mem {
		mem[i] = byte(i)
	}
	m := newMaster(mem, ps, 2)
	changed := []int{1, 2, 3, 5}
	writer := map[int]int{1: 0, 2: -1, 3: 1, 5: 0}

	var pl plan
	m.plan(&pl, 1, "R", changed, writer)
	if want := []int{1, 2, 5}; !slices.Equal(pl.notices, want) || len(pl.act) != 0 || pl.eager {
		t.Fatalf("first instance: notices %v, pushes %v, eager %v; want notices %v and nothing pushed", pl.notices, pl.act, pl.eager, want)
	}
	m.snapshot(writer, changed)
	if !bytes.Equal(m.snap[2], mem[2*ps:3*ps]) || len(m.snap) != 3 {
		t.Fatalf("snapshot holds %d pages, page 2 %x", len(m.snap), m.snap[2])
	}
	// The slave fetches page 2 (and, reading in order, nothing else lacks
	// the pages after it but 3, which it holds).
	out, err := m.answer(1, pageRequest(2, 0))
	if err != nil || len(out) != 8+ps {
		t.Fatalf("answer: %d bytes, %v", len(out), err)
	}
	if _, err := m.answer(1, pageRequest(2, 0)); err == nil {
		t.Errorf("a second request for a page the slave holds was answered")
	}
	if _, err := m.answer(1, pageRequest(5, 7)); err == nil {
		t.Errorf("a request for another version was answered")
	}

	m.plan(&pl, 1, "R", changed, writer)
	if len(pl.notices) != 0 || !maps.Equal(pl.act, map[int]uint8{2: actRuns}) || pl.eager {
		t.Fatalf("second instance: notices %v, pushes %v, eager %v; want page 2's runs pushed only", pl.notices, pl.act, pl.eager)
	}
	// Page 1 learned while the slave lacks it: pushed whole, and then
	// half of what changes was read: everything is pushed.
	m.learnedSet("R", 1)[1] = struct{}{}
	m.plan(&pl, 1, "R", changed, writer)
	if want := map[int]uint8{1: actWhole, 2: actRuns, 5: actWhole}; !pl.eager || !maps.Equal(pl.act, want) {
		t.Fatalf("third instance: pushes %v, eager %v; want %v, eager", pl.act, pl.eager, want)
	}
	if len(m.lacks[1]) != 0 || len(m.nlack) != 0 || len(m.snap) != 0 {
		t.Errorf("after whole pushes: lacks %v, counts %v, %d snapshots; want none", m.lacks[1], m.nlack, len(m.snap))
	}

	merged := &delta.Delta{}
	merged.Reset(3, delta.Merged)
	delta.AppendFull(merged, uint64(ps+3), []byte{0xA1, 0xA2})   // page 1
	delta.AppendFull(merged, uint64(2*ps+1), []byte{0xB1})       // page 2
	delta.AppendFull(merged, uint64(3*ps+4), []byte{0xC1})       // page 3: not pushed
	delta.AppendFull(merged, uint64(5*ps-1), []byte{0xD1, 0xD2}) // pages 4 and 5
	push := &delta.Delta{}
	pushDelta(push, 3, merged.Runs, pl.act, mem, ps)
	want := []delta.Run{{Off: ps, Data: mem[ps : 2*ps]}, {Off: 2*ps + 1, Data: []byte{0xB1}}, {Off: 5 * ps, Data: mem[5*ps : 6*ps]}}
	if len(push.Runs) != len(want) {
		t.Fatalf("pushed runs %v, want %v", push.Runs, want)
	}
	for i, r := range push.Runs {
		if r.Off != want[i].Off || !bytes.Equal(r.Data, want[i].Data) {
			t.Errorf("pushed run %d at %d (%x), want at %d (%x)", i, r.Off, r.Data, want[i].Off, want[i].Data)
		}
	}
}
