package lazy

import (
	"bytes"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cape-go/cape/delta"
)

// sent is what a test's Round.Send saw for one slave.
type sent struct {
	notices []int
	push    []delta.Run // what Seal was given
}

// fakeRound returns a Round whose Seal records the pushed runs (the
// envelope is "E" and the index of the record) and whose Send parses the
// payload, into got by rank.
func fakeRound(t *testing.T, got map[int]*sent, npages int) *Round {
	var mu sync.Mutex
	var pushes [][]delta.Run
	return &Round{
		Seal: func(dst []byte, push *delta.Delta) ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			runs := make([]delta.Run, len(push.Runs))
			for i, r := range push.Runs {
				runs[i] = delta.Run{Off: r.Off, Data: bytes.Clone(r.Data)}
			}
			pushes = append(pushes, runs)
			return append(dst, 'E', byte(len(pushes)-1)), nil
		},
		Send: func(rank int, payload []byte) error {
			notices, env, err := OpenMerged(payload, npages, nil)
			if err != nil || len(env) != 2 || env[0] != 'E' {
				t.Errorf("node %d sent %x: %v", rank, payload, err)
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			got[rank] = &sent{notices: notices, push: pushes[env[1]]}
			return nil
		},
	}
}

// write returns a delta of node rank that writes v at each offset, and
// applies it to arena.
func write(arena []byte, seq uint64, rank int, v byte, offs ...int) *delta.Delta {
	d := &delta.Delta{}
	d.Reset(seq, rank)
	for _, off := range offs {
		delta.AppendFull(d, uint64(off), []byte{v})
		arena[off] = v
	}
	return d
}

// TestExchange runs a region's exchanges on the master of three nodes,
// with slaves that fetch in between: each slave is noticed the pages the
// others wrote, never its own; a page it fetched is served as of the
// exchange whatever the arena holds later, and is pushed (only the bytes
// it did not write) at the region's next instance; another region's
// fetches push nothing to this one; the Results count what was sent and
// fetched.
func TestExchange(t *testing.T) {
	const ps, npages = 16, 8
	arena := make([]byte, npages*ps)
	m := newMaster(arena, ps, 3)
	got := map[int]*sent{}
	rd := fakeRound(t, got, npages)
	exchange := func(seq uint64, name string, ds ...*delta.Delta) {
		t.Helper()
		md := &delta.Delta{}
		md.Reset(seq, delta.Merged)
		var runs []delta.Run
		for _, d := range ds {
			runs = append(runs, d.Runs...)
		}
		slices.SortFunc(runs, func(a, b delta.Run) int { return int(a.Off) - int(b.Off) })
		for _, r := range runs {
			delta.AppendFull(md, r.Off, r.Data)
		}
		clear(got)
		rd.Seq, rd.Name, rd.Extent, rd.Merged, rd.Deltas, rd.Committed = seq, name, len(arena), md, ds, []int{1, 2}
		if _, err := m.Exchange(rd); err != nil {
			t.Fatal(err)
		}
		for _, s := range rd.Committed {
			if got[s] == nil {
				t.Fatalf("region #%d: node %d was sent nothing", seq, s)
			}
			if r := m.Result(s); r.Err != nil || r.Size != 4+4*len(got[s].notices)+2 || m.Sent(s) != r.Size {
				t.Errorf("region #%d: node %d: result %+v, sent %d; want %d bytes without error", seq, s, r, m.Sent(s), 4+4*len(got[s].notices)+2)
			}
		}
	}
	fetch := func(s, p int, seq uint64) {
		t.Helper()
		if out, err := m.answer(s, pageRequest(p, seq)); err != nil || len(out) != 8+ps {
			t.Fatalf("node %d fetched page %d: %d bytes, %v", s, p, len(out), err)
		}
	}

	// Region R #1: each node writes its own page, 1, 3 and 5.
	exchange(1, "R", write(arena, 1, 0, 1, ps+1), write(arena, 1, 1, 3, 3*ps+2), write(arena, 1, 2, 5, 5*ps+3))
	if !slices.Equal(got[1].notices, []int{1, 5}) || !slices.Equal(got[2].notices, []int{1, 3}) {
		t.Fatalf("notices %v and %v, want [1 5] and [1 3]", got[1].notices, got[2].notices)
	}
	if len(got[1].push) != 0 || len(got[2].push) != 0 {
		t.Fatalf("pushed %v and %v on a first instance, want nothing", got[1].push, got[2].push)
	}
	// Node 1 fetches page 1 as of #1, though the master's sequential code
	// has written it since; node 2 fetches page 3.
	arena[ps+1] = 0x11
	fetch(1, 1, 1)
	if out, _ := m.answer(2, pageRequest(3, 1)); out[8+2] != 3 || out[8+1] != 0 {
		t.Fatalf("page 3 served as %x, want its content as of region #1", out[8:])
	}

	// Region S #2 changes page 1 again: node 1 fetched it after R, not S,
	// so S only notices it.
	exchange(2, "S", write(arena, 2, 0, 7, ps+4), write(arena, 2, 1, 0), write(arena, 2, 2, 0))
	if !slices.Equal(got[1].notices, []int{1}) || len(got[1].push) != 0 || len(got[2].notices) != 0 {
		t.Fatalf("S: node 1 noticed %v, pushed %v; node 2 noticed %v; want [1], nothing, nothing", got[1].notices, got[1].push, got[2].notices)
	}
	if r := m.Result(1); r.Fetched != 8+ps {
		t.Errorf("S: node 1 fetched %d bytes since R, want %d", r.Fetched, 8+ps)
	}
	fetch(1, 1, 2)

	// Region R #3: nodes 0 and 1 write pages 1 and 3. Node 1 fetched page
	// 1 after R, so it is pushed to it, less its own byte. Node 2 fetched
	// page 3: that is half of what changed, so it gets everything, page 1
	// whole (it lacks it).
	exchange(3, "R", write(arena, 3, 0, 9, ps+1), write(arena, 3, 1, 8, ps+2, 3*ps+2), write(arena, 3, 2, 0))
	if want := []delta.Run{{Off: ps + 1, Data: []byte{9}}}; len(got[1].notices) != 0 || !runsEqual(got[1].push, want) {
		t.Errorf("R again: node 1 noticed %v, pushed %v; want no notice, %v", got[1].notices, got[1].push, want)
	}
	if r := m.Result(2); !r.Eager || r.Pushed != 2 {
		t.Errorf("R again: node 2's result %+v, want eager with 2 pages pushed", r)
	}
	want := []delta.Run{{Off: ps, Data: bytes.Clone(arena[ps : 2*ps])}, {Off: 3*ps + 2, Data: []byte{8}}}
	if len(got[2].notices) != 0 || !runsEqual(got[2].push, want) {
		t.Errorf("R again: node 2 noticed %v, pushed %v; want no notice, %v", got[2].notices, got[2].push, want)
	}
	if _, ok := m.lacks[2][1]; ok {
		t.Errorf("node 2 still lacks page 1, pushed whole")
	}
}

func runsEqual(a, b []delta.Run) bool {
	return slices.EqualFunc(a, b, func(x, y delta.Run) bool { return x.Off == y.Off && bytes.Equal(x.Data, y.Data) })
}

// TestExchangeFailures: a page server that could not accept the helpers
// fails the exchange before anything is sent; a slave's failed send or
// envelope is its Result's error, and the other slaves are sent theirs; a
// slave not committed (lost) is sent nothing.
func TestExchangeFailures(t *testing.T) {
	const ps = 16
	arena := make([]byte, 4*ps)
	m := newMaster(arena, ps, 4)
	md := write(arena, 1, delta.Merged, 1, 0)
	ds := []*delta.Delta{write(arena, 1, 0, 1, 0), nil, {}, {}}
	errSend, errSeal := errors.New("send"), errors.New("seal")
	var sentTo []int
	rd := &Round{Seq: 1, Name: "R", Extent: len(arena), Merged: md, Deltas: ds, Committed: []int{2, 3},
		Seal: func(dst []byte, push *delta.Delta) ([]byte, error) {
			if len(sentTo) == 1 {
				return nil, errSeal
			}
			return dst, nil
		},
		Send: func(rank int, payload []byte) error {
			sentTo = append(sentTo, rank)
			return errSend
		}}
	m.acceptErr = errors.New("accept")
	if _, err := m.Exchange(rd); !errors.Is(err, m.acceptErr) || len(sentTo) != 0 {
		t.Fatalf("with the helpers not accepted: %v, sent to %v; want the accept error, nothing sent", err, sentTo)
	}
	m.acceptErr = nil
	if _, err := m.Exchange(rd); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(m.Result(2).Err, errSend) || !errors.Is(m.Result(3).Err, errSeal) || !slices.Equal(sentTo, []int{2}) {
		t.Errorf("results %+v and %+v, sent to %v; want the send's and the seal's errors", m.Result(2), m.Result(3), sentTo)
	}
	if r := m.Result(1); r.Size != 0 || r.Notices != 0 || len(m.lacks[1]) != 0 {
		t.Errorf("the lost node 1: %+v, lacks %v; want nothing", r, m.lacks[1])
	}
}

// TestExchangeClock checks that an Exchange reads the clock only through
// Round.Now: untimed, its step times are zero; timed by a clock that
// advances a millisecond a reading, each step took a millisecond.
func TestExchangeClock(t *testing.T) {
	const ps = 16
	arena := make([]byte, 4*ps)
	m := newMaster(arena, ps, 2)
	md := write(arena, 1, delta.Merged, 1, 0)
	rd := &Round{Seq: 1, Name: "R", Extent: len(arena), Merged: md,
		Deltas: []*delta.Delta{write(arena, 1, 0, 1, 0), {}}, Committed: []int{1},
		Seal: func(dst []byte, push *delta.Delta) ([]byte, error) { return dst, nil },
		Send: func(rank int, payload []byte) error { return nil }}
	rep, err := m.Exchange(rd)
	if err != nil || rep.Pages != 0 || rep.Plan != 0 || rep.Send != 0 || rep.Snapshot != 0 {
		t.Fatalf("untimed: %+v, %v; want zero step times", rep, err)
	}
	var clock time.Time
	rd.Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	rep, err = m.Exchange(rd)
	if ms := time.Millisecond; err != nil || rep.Pages != ms || rep.Plan != ms || rep.Send != ms || rep.Snapshot != ms {
		t.Fatalf("timed: %+v, %v; want a millisecond a step", rep, err)
	}
}
