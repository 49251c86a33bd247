package roster

import (
	"errors"
	"testing"
	"time"
)

// TestNoticeTexts checks the texts of the master's notices, which users
// and the end-to-end tests read (cmd/cape looks for "cape: master: lost
// node N " and "a straggler").
func TestNoticeTexts(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 11, 12, 345_000_000, time.UTC)
	many := []Unit{{0, 2}, {6, 8}, {12, 14}, {18, 20}, {24, 26}, {30, 31}}
	for _, c := range []struct {
		name, got, want string
	}{
		{"lost static", Action{Kind: Lost, Rank: 2, At: at, Into: 1500 * time.Microsecond, Err: errors.New("node 2: EOF"),
			Units: []Unit{{4, 8}}}.LostText("main.go:12 #3"),
			"lost node 2 at 10:11:12.345, 2ms into main.go:12 #3: node 2: EOF; its 1 unit (4 iterations: [4, 8)): the master re-runs them"},
		{"lost dynamic, no chunk", Action{Kind: Lost, Rank: 1, At: at, Into: 250 * time.Microsecond, Err: errors.New("x"),
			Dynamic: true}.LostText("r"),
			"lost node 1 at 10:11:12.345, 250µs into r: x; its units: none (it had not asked for a chunk): they go back to the pool, for the first survivor to ask (the master included)"},
		{"lost many units", Action{Kind: Lost, Rank: 3, At: at, Err: errors.New("x"), Units: many}.LostText("r"),
			"lost node 3 at 10:11:12.345, 0s into r: x; its 6 units (11 iterations: [0, 2) [6, 8) [12, 14) [18, 20) and 2 more): the master re-runs them"},
		{"recovered", Action{Kind: Recovered, Ranks: []int{3, 1}, Took: 4 * time.Millisecond, Count: 1, Reexec: 1234 * time.Microsecond}.RecoveredText("r", []int{0, 2}),
			"r recovered from the loss of node 3, 1 in 4ms: the master re-ran 1 unit in 1ms; next regions are shared by nodes [0 2]"},
		{"refuse", Action{Kind: Refuse, Rank: 2, MsgKind: 51, MsgSeq: 7}.RefuseText(),
			"refused node 2's late message (kind 51, region #7): it was declared lost"},
		{"leave", Action{Kind: Leave, Rank: 2}.LeaveText("r"), "node 2 straggled in r; its units ran elsewhere"},
		{"joiner gave up", GaveUpText(4, errors.New("node 4: EOF")), "joining node 4 gave up before it was admitted: node 4: EOF"},
		{"joiner refused", RefusedText(4, "the job keeps no checkpoint log"), "refused joining node 4: the job keeps no checkpoint log"},
		{"joiner lost on admission", LostAdmittedText(4, errors.New("node 4: broken pipe")), "joining node 4 lost as it was admitted: node 4: broken pipe"},
		{"joined", Request{Rank: 4, Replayed: 9}.JoinedText(at, 11),
			"node 4 joined at 10:11:12.345 after region #11 (it asked once it had replayed 9 regions from the log); it takes a share of the next regions"},
		{"after commit", AfterCommitText(2, at, "r", errors.New("node 2: broken pipe")),
			"lost node 2 at 10:11:12.345 while sending it the result of r: node 2: broken pipe; it takes no share of the next regions"},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
}

// TestSummary checks the final notice: none without a loss, else every
// loss in order with the job's re-executed work.
func TestSummary(t *testing.T) {
	m := NewMembers(4, -1)
	if s := m.Summary(4, ""); s != "" {
		t.Errorf("no loss: %q, want none", s)
	}
	m.declare(3, 2, time.Time{})
	m.Units, m.Reexec = 1, 2500*time.Microsecond
	if s, want := m.Summary(4, ""), "the job completed after losing 1 of 4 nodes (node 3 in region #2); 1 unit re-executed on the master in 3ms"; s != want {
		t.Errorf("one loss:\n got %q\nwant %q", s, want)
	}
	m.declare(1, 5, time.Time{})
	m.Units, m.Reexec = 0, 0
	if s, want := m.Summary(6, ""), "the job completed after losing 2 of 6 nodes (node 3 in region #2, node 1 in region #5); 0 units re-executed on the master in 0s"; s != want {
		t.Errorf("two losses:\n got %q\nwant %q", s, want)
	}
	// The program ended inside a region (os.Exit in an iteration): the
	// job did not complete.
	if s, want := m.Summary(6, "region main.go:45:2 (#5)"), "the job lost 2 of 6 nodes (node 3 in region #2, node 1 in region #5) before the program ended inside region main.go:45:2 (#5); 0 units re-executed on the master in 0s"; s != want {
		t.Errorf("ended inside a region:\n got %q\nwant %q", s, want)
	}
}

// TestShort checks the rounding of durations in notices.
func TestShort(t *testing.T) {
	for _, c := range []struct{ in, want time.Duration }{
		{0, 0},
		{1499 * time.Nanosecond, time.Microsecond},
		{999_600 * time.Nanosecond, 1000 * time.Microsecond},
		{time.Millisecond, time.Millisecond},
		{1_499_999 * time.Nanosecond, time.Millisecond},
		{2_500_000 * time.Nanosecond, 3 * time.Millisecond},
		{90 * time.Second, 90 * time.Second},
	} {
		if got := Short(c.in); got != c.want {
			t.Errorf("Short(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if Plural(1, "unit") != "1 unit" || Plural(0, "unit") != "0 units" || Plural(2, "region") != "2 regions" {
		t.Error("Plural")
	}
	if JoinInts(nil) != "" || JoinInts([]int{3, 1}) != "3, 1" {
		t.Error("JoinInts")
	}
}

// TestStatsNote checks the --stats note of a region: none when nothing
// was lost or waited for, the wait alone, and a loss with its re-executed
// units.
func TestStatsNote(t *testing.T) {
	t0 := time.Unix(0, 0)
	ms := func(k int) time.Time { return t0.Add(time.Duration(k) * time.Millisecond) }
	m := NewMembers(3, -1)
	ro := New(&m)
	ro.Step(Event{Kind: Begin, At: t0, Region: Region{Seq: 1, Count: 9, Nodes: 3, Rerun: true}})
	if s := ro.StatsNote(); s != "" {
		t.Errorf("a fresh region: %q, want none", s)
	}
	ro.Step(Event{Kind: Tick, At: ms(2), Waited: 1500 * time.Microsecond})
	if s, want := ro.StatsNote(), "; of the compute, 1.5ms waiting for the slaves' deltas"; s != want {
		t.Errorf("a wait:\n got %q\nwant %q", s, want)
	}
	ro.Step(Event{Kind: Closed, Rank: 2, Seq: 1, At: ms(3), Err: errors.New("EOF")})
	ro.Step(Event{Kind: NextUnit, At: ms(3)}) // its own unit
	ro.Step(Event{Kind: NextUnit, At: ms(5)}) // node 2's
	ro.Step(Event{Kind: NextUnit, At: ms(8)})
	ro.Ready()
	if s, want := ro.StatsNote(), ", lost node 2: re-executed 1 unit on the master in 3ms; of the compute, 1.5ms waiting for the slaves' deltas"; s != want {
		t.Errorf("a loss:\n got %q\nwant %q", s, want)
	}
}
