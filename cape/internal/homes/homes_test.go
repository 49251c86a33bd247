package homes

import (
	"errors"
	"slices"
	"testing"

	"github.com/cape-go/cape/delta"
)

// TestMergeRule checks that a multiple-writer page merges by package
// delta's rule, reading the entry state from the bytes the writers sent
// under their runs: what is merged, and which conflicts are reported.
func TestMergeRule(t *testing.T) {
	const ps = 16
	run := func(off int, data, entry string) (delta.Run, []byte) {
		return delta.Run{Off: uint64(ps + off), Data: []byte(data)}, []byte(entry)
	}
	write := func(runs ...func() (delta.Run, []byte)) Write {
		w := Write{Page: 1}
		for _, r := range runs {
			x, e := r()
			w.Runs, w.Entry = append(w.Runs, x), append(w.Entry, e)
		}
		return w
	}
	r := func(off int, data, entry string) func() (delta.Run, []byte) {
		return func() (delta.Run, []byte) { return run(off, data, entry) }
	}
	tests := []struct {
		name     string
		w1, w2   Write
		want     string // merged page bytes from offset 0 of the page, "." where not covered
		conflict int    // page offset of the conflict, -1 for none
	}{
		{"disjoint halves", write(r(0, "abcdefgh", "........")), write(r(8, "ABCDEFGH", "........")),
			"abcdefghABCDEFGH", -1},
		{"carried bytes lose to a write", write(r(0, "xxxx5678", "12345678")), write(r(4, "W", "5")),
			"xxxxW678", -1},
		{"a write wins over carried bytes, either order", write(r(4, "5", "5")), write(r(0, "1234W678", "12345678")),
			"1234W678", -1},
		{"the same value twice", write(r(2, "zz", "ab")), write(r(2, "zz", "ab")), "..zz", -1},
		{"different values", write(r(0, "aXcd", "abcd")), write(r(1, "Y", "b")), "", 1},
		{"a conflict after agreeing bytes", write(r(0, "same", "0000"), r(8, "p", "0")), write(r(0, "same", "0000"), r(8, "q", "0")),
			"", 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(Config{Nodes: 3, PageSize: ps})
			if err != nil {
				t.Fatal(err)
			}
			d.Step(Event{Kind: Begin, Seq: 1})
			d.Step(Event{Kind: Touch, Node: 1, Page: 1})
			d.Step(Event{Kind: Touch, Node: 2, Page: 1})
			d.Step(Event{Kind: Notice, Node: 1, Writes: []Write{tc.w1}})
			d.Step(Event{Kind: Notice, Node: 2, Writes: []Write{tc.w2}})
			acts := d.Step(Event{Kind: Notice, Node: 0})
			if tc.conflict >= 0 {
				var ce *delta.ConflictError
				if len(acts) != 1 || acts[0].Kind != Conflict || !errors.As(acts[0].Err, &ce) {
					t.Fatalf("got %+v, want one conflict", acts)
				}
				if ce.Offset != uint64(ps+tc.conflict) || ce.NodeA == ce.NodeB || min(ce.NodeA, ce.NodeB) != 1 || max(ce.NodeA, ce.NodeB) != 2 {
					t.Errorf("conflict %+v, want nodes 1 and 2 at offset %d", ce, ps+tc.conflict)
				}
				if d.Stopped() == nil {
					t.Error("the directory did not stop")
				}
				return
			}
			if len(acts) == 0 || acts[0].Kind != Merged {
				t.Fatalf("got %+v, want a merge first", acts)
			}
			got := []byte("................")
			for _, x := range acts[0].Delta.Runs {
				copy(got[x.Off-ps:], x.Data)
			}
			if s := string(got[:len(tc.want)]); s != tc.want {
				t.Errorf("merged %q, want %q", s, tc.want)
			}
			if !slices.Equal(acts[0].To, []int{1, 2}) || acts[0].From != 1 {
				t.Errorf("merged for %v homed at %d, want [1 2] at 1", acts[0].To, acts[0].From)
			}
		})
	}
}

// TestBuddy checks whom a slave's pages are replicated to: the next live
// slave, cyclically, and the master where no other slave is live.
func TestBuddy(t *testing.T) {
	tests := []struct {
		nodes int
		lost  []int
		want  []int // by rank 1..nodes-1, live ones
	}{
		{4, nil, []int{2, 3, 1}},
		{4, []int{2}, []int{3, 0, 1}},
		{3, []int{2}, []int{0, 0, 0}},
		{2, nil, []int{0}},
	}
	for _, tc := range tests {
		d, err := New(Config{Nodes: tc.nodes, PageSize: 8})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range tc.lost {
			d.Step(Event{Kind: Lost, Node: l})
		}
		for r := 1; r < tc.nodes; r++ {
			if d.Live(r) {
				if got := d.buddy(r); got != tc.want[r-1] {
					t.Errorf("%d nodes, lost %v: buddy of %d is %d, want %d", tc.nodes, tc.lost, r, got, tc.want[r-1])
				}
			}
		}
	}
}

func TestNewRefuses(t *testing.T) {
	for _, cfg := range []Config{{Nodes: 0, PageSize: 8}, {Nodes: 2, PageSize: 0}, {Nodes: 2, PageSize: -1}} {
		if _, err := New(cfg); !errors.Is(err, ErrProtocol) {
			t.Errorf("New(%+v): %v, want ErrProtocol", cfg, err)
		}
	}
}
