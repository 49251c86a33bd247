package lazy

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/monitor"
)

// fakeTracker is a monitor.Lazy over an arena whose missing pages it
// records; only Install and Invalidate are implemented.
type fakeTracker struct {
	monitor.Lazy
	arena       []byte
	ps          int
	missing     map[int]bool
	invalidated []int
	err         error // Invalidate's
}

func (f *fakeTracker) Install(p int, content []byte) (bool, error) {
	if !f.missing[p] {
		return false, nil
	}
	copy(f.arena[p*f.ps:], content)
	delete(f.missing, p)
	return true, nil
}

func (f *fakeTracker) Invalidate(pages []int) error {
	if f.err != nil {
		return f.err
	}
	f.invalidated = append(f.invalidated, pages...)
	for _, p := range pages {
		f.missing[p] = true
	}
	return nil
}

// fakeHelper is a Helper without a process.
type fakeHelper struct {
	invalid map[int]bool
	version uint64
	fetched int
	done    chan struct{}
}

func (h *fakeHelper) Invalid(p int) bool    { return h.invalid[p] }
func (h *fakeHelper) MarkInvalid(p int)     { h.invalid[p] = true }
func (h *fakeHelper) ClearInvalid(p int)    { delete(h.invalid, p) }
func (h *fakeHelper) SetVersion(seq uint64) { h.version = seq }
func (h *fakeHelper) TakeFetched() int      { n := h.fetched; h.fetched = 0; return n }
func (h *fakeHelper) Done() <-chan struct{} { return h.done }
func (h *fakeHelper) Err() error            { return nil }
func (h *fakeHelper) Close() error          { close(h.done); return nil }

func newFakeSlave(npages, ps int) (*Slave, *fakeTracker, *fakeHelper) {
	tr := &fakeTracker{arena: make([]byte, npages*ps), ps: ps, missing: map[int]bool{}}
	h := &fakeHelper{invalid: map[int]bool{}, done: make(chan struct{})}
	return NewSlave(tr, h, ps), tr, h
}

// TestSlaveRegions runs a slave's side over three regions: the noticed
// pages are invalidated in the helper's record and the tracker, and the
// helper's version follows; pushed runs on present pages are copied, a
// whole pushed page it lacks is installed and no longer lacked.
func TestSlaveRegions(t *testing.T) {
	const ps, npages = 8, 6
	s, tr, h := newFakeSlave(npages, ps)
	push := func(seq uint64, runs ...delta.Run) *delta.Delta {
		d := &delta.Delta{}
		d.Reset(seq, delta.Merged)
		for _, r := range runs {
			delta.AppendFull(d, r.Off, r.Data)
		}
		return d
	}
	whole := make([]byte, ps)
	for i := range whole {
		whole[i] = 0xEE
	}
	for _, c := range []struct {
		notices []int
		push    *delta.Delta
		invalid []int // afterwards
	}{
		{notices: []int{1, 4}, push: push(1, delta.Run{Off: 2, Data: []byte{7, 7}}), invalid: []int{1, 4}},
		{notices: []int{2}, push: push(2, delta.Run{Off: 4 * ps, Data: whole}, delta.Run{Off: 5*ps + 1, Data: []byte{9}}), invalid: []int{1, 2}},
		{notices: nil, push: push(3), invalid: []int{1, 2}},
	} {
		seq := c.push.Region
		env, err := s.Open(AppendMerged(nil, c.notices, []byte("env")), npages*ps)
		if err != nil || string(env) != "env" {
			t.Fatalf("region #%d: open: %q, %v", seq, env, err)
		}
		if err := s.Apply(c.push, tr.arena); err != nil {
			t.Fatalf("region #%d: apply: %v", seq, err)
		}
		if err := s.Invalidate(seq); err != nil {
			t.Fatalf("region #%d: invalidate: %v", seq, err)
		}
		var invalid []int
		for p := range h.invalid {
			invalid = append(invalid, p)
		}
		slices.Sort(invalid)
		if !slices.Equal(invalid, c.invalid) || h.version != seq {
			t.Fatalf("region #%d: helper marks %v at version %d; want %v at %d", seq, invalid, h.version, c.invalid, seq)
		}
	}
	if !slices.Equal(tr.invalidated, []int{1, 4, 2}) {
		t.Errorf("the tracker invalidated %v, want [1 4 2]", tr.invalidated)
	}
	if tr.arena[2] != 7 || tr.arena[5*ps+1] != 9 || tr.arena[4*ps+3] != 0xEE || tr.missing[4] {
		t.Errorf("arena %x: the pushes are not in place", tr.arena)
	}
}

// TestSlaveRefusals: a malformed payload, a pushed run past the region's
// extent, part of a page the slave lacks, a lacked page the tracker holds
// and a failed invalidation are errors; the last leaves the helper's
// version as it was.
func TestSlaveRefusals(t *testing.T) {
	const ps, npages = 8, 4
	run := func(off int, n int) *delta.Delta {
		d := &delta.Delta{}
		d.Reset(1, delta.Merged)
		delta.AppendFull(d, uint64(off), make([]byte, n))
		return d
	}
	for _, c := range []struct {
		name  string
		setUp func(*fakeTracker, *fakeHelper)
		push  *delta.Delta
		want  string
	}{
		{name: "past the extent", push: run(3*ps+4, 8), want: "past the region's extent"},
		{name: "part of a lacked page", setUp: func(tr *fakeTracker, h *fakeHelper) { h.invalid[1], tr.missing[1] = true, true },
			push: run(ps+1, 4), want: "pushed part of page 1"},
		{name: "lacked but present", setUp: func(tr *fakeTracker, h *fakeHelper) { h.invalid[2] = true },
			push: run(2*ps, ps), want: "page 2 is marked invalid but present"},
	} {
		s, tr, h := newFakeSlave(npages, ps)
		if c.setUp != nil {
			c.setUp(tr, h)
		}
		if err := s.Apply(c.push, tr.arena); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}

	s, tr, h := newFakeSlave(npages, ps)
	if _, err := s.Open(AppendMerged(nil, []int{1, 1}, nil), npages*ps); err == nil {
		t.Errorf("notices out of order were accepted")
	}
	if _, err := s.Open(AppendMerged(nil, []int{npages}, nil), npages*ps); err == nil {
		t.Errorf("a notice past the extent was accepted")
	}
	if _, err := s.Open(AppendMerged(nil, []int{3}, nil), npages*ps); err != nil {
		t.Fatal(err)
	}
	tr.err = errors.New("invalidate")
	if err := s.Invalidate(7); !errors.Is(err, tr.err) || h.version != 0 {
		t.Errorf("invalidate: %v, version %d; want the tracker's error, version 0", err, h.version)
	}
}
