package pageserver

import (
	"bytes"
	"slices"
	"testing"

	"github.com/cape-go/cape/cape/internal/wire"
)

// fakeStore is a helper's shared state in memory.
type fakeStore struct {
	snap     []byte
	version  uint64
	updating bool
	held     map[int]bool
	readers  map[int]uint64
}

func (f *fakeStore) Snapshot() []byte         { return f.snap }
func (f *fakeStore) BeginUpdate()             { f.updating = true }
func (f *fakeStore) SetVersion(seq uint64)    { f.version, f.updating = seq, false }
func (f *fakeStore) SetHeld(p int, held bool) { f.held[p] = held }
func (f *fakeStore) Readers(p int) uint64     { return f.readers[p] }

// heldPages is the number of pages the store records as held.
func (f *fakeStore) heldPages() int {
	n := 0
	for _, h := range f.held {
		if h {
			n++
		}
	}
	return n
}

// TestUpdateAndPushes checks what node 1 of a job publishes at two
// releases and which pages it pushes.
func TestUpdateAndPushes(t *testing.T) {
	const ps, pages = 16, 12
	st := &fakeStore{snap: make([]byte, ps*pages), held: map[int]bool{}, readers: map[int]uint64{}}
	s := New(st, 1, ps)
	var kept [][2]int
	s.OnKept(func(lo, hi int) { kept = append(kept, [2]int{lo, hi}) })
	arena := make([]byte, ps*pages)
	for i := range arena {
		arena[i] = byte(i / ps)
	}
	s.Update(1, []wire.Home{{PageRange: wire.PageRange{Lo: 2, Hi: 5}, Holder: 1}, {PageRange: wire.PageRange{Lo: 5, Hi: 6}, Holder: 0, Multi: true}}, arena)
	if st.version != 1 || st.updating || st.heldPages() != 3 || !st.held[2] || !st.held[4] || st.held[5] {
		t.Fatalf("after #1: version %d updating %v held %d %v", st.version, st.updating, st.heldPages(), st.held)
	}
	if !bytes.Equal(st.snap[2*ps:5*ps], arena[2*ps:5*ps]) || st.snap[5*ps] != 0 {
		t.Fatalf("snapshot after #1: %v", st.snap)
	}
	if !slices.Equal(kept, [][2]int{{2, 5}}) {
		t.Fatalf("after #1: told kept %v, want the pages copied, [2, 5)", kept)
	}
	// Page 3 is written elsewhere: dropped; page 2 again here: updated.
	arena[2*ps] = 99
	s.Update(2, []wire.Home{{PageRange: wire.PageRange{Lo: 2, Hi: 3}, Holder: 1}, {PageRange: wire.PageRange{Lo: 3, Hi: 4}, Holder: 2}}, arena)
	if st.held[3] || !st.held[2] || st.snap[2*ps] != 99 || st.heldPages() != 2 {
		t.Fatalf("after #2: held %v, snapshot page 2 starts %d", st.held, st.snap[2*ps])
	}
	st.readers[2] = 1<<0 | 1<<1 | 1<<3 // its own bit is never pushed to
	st.readers[7] = 1 << 2
	got := s.Pushes([]wire.PageRange{{Lo: 0, Hi: 3}, {Lo: 6, Hi: 9}}, arena, nil)
	if len(got) != 2 || got[0].Page != 2 || !slices.Equal(got[0].Readers, []int{0, 3}) || got[1].Page != 7 || !slices.Equal(got[1].Readers, []int{2}) ||
		got[0].Data[0] != 99 || got[1].Data[0] != 7 {
		t.Fatalf("pushes: %+v", got)
	}
}
