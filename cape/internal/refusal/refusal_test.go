package refusal

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWindow feeds a Window scripted notices and interval ends and checks
// each line it returns.
func TestWindow(t *testing.T) {
	type step struct {
		note   string // a notice; "" ends the interval
		want   string // the line printed, "" none
		opened bool   // the notice opened an interval
	}
	tests := []struct {
		name  string
		burst int
		steps []step
	}{
		{"within the burst", 2, []step{
			{note: "refused a", want: "refused a", opened: true},
			{note: "refused b", want: "refused b"},
			{want: ""},
		}},
		{"one held", 1, []step{
			{note: "refused a", want: "refused a", opened: true},
			{note: "refused b"},
			{want: "1 more connection refused in the last 10s (2 in all; the last: refused b)"},
		}},
		{"several held, the last named", 1, []step{
			{note: "refused a", want: "refused a", opened: true},
			{note: "refused b"},
			{note: "refused c"},
			{want: "2 more connections refused in the last 10s (3 in all; the last: refused c)"},
		}},
		{"a new interval prints in full again; the total counts the job's life", 1, []step{
			{note: "refused a", want: "refused a", opened: true},
			{note: "refused b"},
			{want: "1 more connection refused in the last 10s (2 in all; the last: refused b)"},
			{note: "refused c", want: "refused c", opened: true},
			{note: "refused d"},
			{want: "1 more connection refused in the last 10s (4 in all; the last: refused d)"},
		}},
		{"an end with nothing held says nothing", 1, []step{
			{want: ""},
			{note: "refused a", want: "refused a", opened: true},
			{want: ""},
			{want: ""},
		}},
		{"zero burst holds everything", 0, []step{
			{note: "refused a", opened: true},
			{want: "1 more connection refused in the last 10s (1 in all; the last: refused a)"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Window{Burst: tt.burst, Interval: Interval}
			for i, s := range tt.steps {
				if s.note == "" {
					if got := w.End(); got != s.want {
						t.Errorf("step %d: End = %q, want %q", i, got, s.want)
					}
					continue
				}
				line, print, opened := w.Note(s.note)
				if line != s.want || print != (s.want != "") || opened != s.opened {
					t.Errorf("step %d: Note(%q) = %q, %v, %v; want %q, %v, %v", i, s.note, line, print, opened, s.want, s.want != "", s.opened)
				}
			}
		})
	}
}

// fakeClock runs the interval's timer by hand.
type fakeClock struct {
	t       *testing.T
	pending func()
	started int
}

func (c *fakeClock) after(d time.Duration, f func()) func() bool {
	if d != Interval {
		c.t.Errorf("interval %v, want %v", d, Interval)
	}
	c.started++
	c.pending = f
	return func() bool {
		ok := c.pending != nil
		c.pending = nil
		return ok
	}
}

// fire ends the running interval as its timer would.
func (c *fakeClock) fire() {
	if c.pending == nil {
		c.t.Fatal("no interval timer running")
	}
	f := c.pending
	c.pending = nil
	f()
}

// TestLimiterBounded floods a Limiter with refused connections over
// several intervals: at most Burst lines plus one summary are printed per
// interval, and the lines printed in full plus the summaries' counts add up
// to every connection refused.
func TestLimiterBounded(t *testing.T) {
	var lines []string
	clk := &fakeClock{t: t}
	l := New(func(s string) { lines = append(lines, s) }, clk.after)
	const intervals, per = 3, 1204
	n := 0
	for range intervals {
		for range per {
			n++
			l.Note(fmt.Sprintf("refused a joining node: connection %d", n))
		}
		clk.fire()
	}
	l.Note("refused a joining node: the last one") // summarised by Flush
	l.Note("refused a joining node: one more")
	l.Flush()
	n += 2
	if clk.pending != nil {
		t.Error("Flush left the interval's timer running")
	}
	if clk.started != intervals+1 {
		t.Errorf("%d intervals timed, want %d", clk.started, intervals+1)
	}
	if max := intervals*(Burst+1) + 2; len(lines) > max {
		t.Fatalf("%d lines for %d refused connections, want at most %d", len(lines), n, max)
	}
	sumRE := regexp.MustCompile(`^([0-9,]+) more connections? refused in the last 10s \(([0-9,]+) in all; the last: refused`)
	count, summaries := 0, 0
	for _, l := range lines {
		if m := sumRE.FindStringSubmatch(l); m != nil {
			k, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			if err != nil {
				t.Fatal(err)
			}
			count += k
			summaries++
			continue
		}
		if !strings.HasPrefix(l, "refused a joining node: ") {
			t.Errorf("unexpected line %q", l)
		}
		count++
	}
	if count != n {
		t.Errorf("the lines account for %d refused connections, want %d:\n%s", count, n, strings.Join(lines, "\n"))
	}
	if summaries != intervals {
		t.Errorf("%d summaries, want %d", summaries, intervals)
	}
	if want := Thousands(per-Burst) + " more connections refused"; !strings.HasPrefix(lines[Burst], want) {
		t.Errorf("first summary %q, want %q...", lines[Burst], want)
	}
}

// TestLimiterFlushQuiet checks that a flush with nothing held prints
// nothing and that the next notice opens a new interval.
func TestLimiterFlushQuiet(t *testing.T) {
	var lines []string
	clk := &fakeClock{t: t}
	l := New(func(s string) { lines = append(lines, s) }, clk.after)
	l.Flush()
	l.Note("refused x")
	l.Flush()
	l.Note("refused y")
	if got := strings.Join(lines, "|"); got != "refused x|refused y" || clk.started != 2 {
		t.Errorf("lines %q, %d intervals; want \"refused x|refused y\", 2", got, clk.started)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1204: "1,204", 1234567: "1,234,567", -1204: "-1,204"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestIs(t *testing.T) {
	for msg, want := range map[string]bool{
		"refused a joining node from 1.2.3.4: bad token": true,
		"refused ":                   true,
		"node 3 refused":             false,
		"Refused a node":             false,
		"":                           false,
		"slow heartbeat from node 2": false,
	} {
		if got := Is(msg); got != want {
			t.Errorf("Is(%q) = %v, want %v", msg, got, want)
		}
	}
}
