package roster

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestJoinsTake checks that requests come out in rank order, a repeated
// request keeps the last count, and each is taken once.
func TestJoinsTake(t *testing.T) {
	var j Joins
	if j.Waiting() || j.Take() != nil {
		t.Fatal("a new Joins has requests")
	}
	j.Ask(5, 1)
	j.Ask(3, 2)
	j.Ask(5, 4)
	if !j.Waiting() {
		t.Fatal("not waiting after requests")
	}
	got := j.Take()
	if want := []Request{{3, 2}, {5, 4}}; !slices.Equal(got, want) {
		t.Fatalf("Take: %v, want %v", got, want)
	}
	if j.Waiting() || j.Take() != nil {
		t.Fatal("requests taken twice")
	}
}

// TestJoinsInclude checks that the admitted ranks are included once, in
// the order they were admitted, over several boundaries, and that requests
// taken concurrently with Ask are each taken once.
func TestJoinsInclude(t *testing.T) {
	var j Joins
	if inc := j.Include(); len(inc) != 0 {
		t.Fatalf("a new Joins includes %v", inc)
	}
	for _, c := range []struct {
		admitted [][]int
		want     []int
	}{
		{[][]int{{4}}, []int{4}},
		{nil, nil},
		{[][]int{{6, 5}, {7}}, []int{6, 5, 7}},
	} {
		for _, ranks := range c.admitted {
			j.Admitted(ranks)
		}
		if inc := j.Include(); !slices.Equal(inc, c.want) {
			t.Errorf("after admitting %v: Include %v, want %v", c.admitted, inc, c.want)
		}
	}
	const askers = 8
	done := make(chan struct{})
	for rank := 10; rank < 10+askers; rank++ {
		go func() { j.Ask(rank, uint64(rank)); done <- struct{}{} }()
	}
	seen := map[int]int{}
	for left := askers; left > 0; {
		select {
		case <-done:
			left--
		default:
		}
		for _, r := range j.Take() {
			seen[r.Rank]++
		}
	}
	for _, r := range j.Take() {
		seen[r.Rank]++
	}
	for rank := 10; rank < 10+askers; rank++ {
		if seen[rank] != 1 {
			t.Errorf("rank %d taken %d times, want once", rank, seen[rank])
		}
	}
}

// TestJoinRefusal checks each reason the master refuses joining nodes,
// and that the first that applies is given.
func TestJoinRefusal(t *testing.T) {
	for _, c := range []struct {
		s    LogState
		want string // a part of the reason; "" for admitted
	}{
		{LogState{Logging: true}, ""},
		{LogState{}, "keeps no checkpoint log"},
		{LogState{Lazy: true, Refusal: "the log stopped"}, "keeps no checkpoint log"},
		{LogState{Logging: true, Refusal: "the log stopped", Lazy: true}, "the log stopped"},
		{LogState{Logging: true, Lazy: true}, "--transfer eager"},
	} {
		got := JoinRefusal(c.s)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("JoinRefusal(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestAdmittedLive checks that the live set sent to joining nodes holds
// the survivors and every node that asked, ascending, and leaves next
// alone.
func TestAdmittedLive(t *testing.T) {
	next := []int{0, 2, 3}
	got := AdmittedLive(next, []Request{{Rank: 5}, {Rank: 4}})
	if want := []int{0, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("AdmittedLive: %v, want %v", got, want)
	}
	if !slices.Equal(next, []int{0, 2, 3}) {
		t.Errorf("next changed: %v", next)
	}
}

// TestCheckAdmission checks the joining node's validation of the master's
// answer.
func TestCheckAdmission(t *testing.T) {
	for _, c := range []struct {
		live    []int
		rank    int
		at, seq uint64
		want    string // a part of the error; "" for none
	}{
		{[]int{0, 1, 4}, 4, 6, 7, ""},
		{[]int{0, 1, 4}, 4, 9, 7, ""}, // admitted later: the node replays up to there
		{[]int{0, 1}, 4, 6, 7, "does not name this node"},
		{[]int{0, 4}, 4, 5, 7, "admitted from region #6, this node is at region #7"},
	} {
		err := CheckAdmission(c.live, c.rank, c.at, c.seq)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckAdmission(%v, %d, %d, %d) = %v, want %q", c.live, c.rank, c.at, c.seq, err, c.want)
		}
	}
}

// TestShouldAsk walks a joining node through the log: each step is its
// region, the log's last record and the time, with the decision.
func TestShouldAsk(t *testing.T) {
	type step struct {
		seq, to uint64
		at      time.Duration
		ask     bool
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"close enough at once", []step{{1, 2, 0, true}, {5, 6, 0, true}, {3, 4, 0, true}}},
		{"a log shorter than the node", []step{{9, 3, 0, true}}},
		{"halving keeps it replaying", []step{{1, 40, 0, false}, {21, 40, 500 * time.Millisecond, false}, {31, 40, time.Second, false}, {38, 39, time.Second, true}}},
		{"no look before the period", []step{{1, 40, 0, false}, {2, 40, 499 * time.Millisecond, false}, {2, 40, 500 * time.Millisecond, true}}},
		{"a lead that stops halving", []step{{1, 40, 0, false}, {21, 40, 500 * time.Millisecond, false}, {22, 40, time.Second, true}}},
	} {
		var cu Catchup
		t0 := time.Unix(1000, 0)
		for i, s := range c.steps {
			if got := cu.ShouldAsk(s.seq, s.to, t0.Add(s.at)); got != s.ask {
				t.Errorf("%s: step %d (region %d, log to %d, at %v): ask=%v, want %v", c.name, i, s.seq, s.to, s.at, got, s.ask)
			}
		}
	}
}

// TestAnswerRequests checks the master's answer at a boundary: a log that
// cannot bring the nodes up refuses them all with its reason, and
// otherwise each is sent the survivors with every node that asked.
func TestAnswerRequests(t *testing.T) {
	reqs := []Request{{Rank: 3, Replayed: 4}, {Rank: 5, Replayed: 6}}
	for _, c := range []struct {
		name    string
		next    []int
		s       LogState
		refusal string // a part of the reason; "" for admitted
		live    []int
	}{
		{"admitted", []int{0, 1}, LogState{Logging: true}, "", []int{0, 1, 3, 5}},
		{"admitted beside a loss", []int{0, 2}, LogState{Logging: true}, "", []int{0, 2, 3, 5}},
		{"no log", []int{0, 1}, LogState{}, "keeps no checkpoint log", nil},
		{"suspended log", []int{0, 1}, LogState{Logging: true, Refusal: "suspended at its bound"}, "suspended at its bound", nil},
		{"lazy transfer", []int{0, 1}, LogState{Logging: true, Lazy: true}, "--transfer eager", nil},
	} {
		next := slices.Clone(c.next)
		a := AnswerRequests(reqs, next, c.s)
		if c.refusal == "" && a.Refusal != "" || !strings.Contains(a.Refusal, c.refusal) {
			t.Errorf("%s: refusal %q, want %q", c.name, a.Refusal, c.refusal)
		}
		if !slices.Equal(a.Live, c.live) {
			t.Errorf("%s: live %v, want %v", c.name, a.Live, c.live)
		}
		if !slices.Equal(next, c.next) {
			t.Errorf("%s: the survivors changed to %v", c.name, next)
		}
	}
}
