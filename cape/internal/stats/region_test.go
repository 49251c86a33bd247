package stats

import (
	"bytes"
	"testing"
	"time"
)

func TestAppendRegion(t *testing.T) {
	base := Region{Node: "master", Name: "a.go:3:1", Seq: 7,
		Start: 1500 * time.Nanosecond, Compute: 2 * time.Millisecond, Create: 3499 * time.Nanosecond, Pages: 4, Bytes: 100,
		Exchange: 10 * time.Microsecond, Wait: 4 * time.Microsecond, Merge: 3 * time.Microsecond, Send: 2 * time.Microsecond,
		Sent: 10, Received: 20}
	slave := base
	slave.Node, slave.Slave, slave.MergedIn, slave.OwnIn = "node 1", true, 50, 5
	notes := base
	notes.Reexec, notes.Faults, notes.Hints = "; r", FaultNote(3), HintNote(true, false, 2)
	tests := []struct {
		name string
		in   Region
		want string
	}{
		{"master", base, "cape: master: region a.go:3:1 #7: start 2µs, compute 2ms, create 3µs (4 pages, 100 bytes), exchange 10µs = wait 4µs + merge/inject 3µs + send 2µs (sent 10, received 20 bytes)\n"},
		{"slave", slave, "cape: node 1: region a.go:3:1 #7: start 2µs, compute 2ms, create 3µs (4 pages, 100 bytes), exchange 10µs = wait 4µs + merge/inject 3µs + send 2µs (sent 10, received 20 bytes); merged delta received: 50 bytes, 5 of them where this node wrote\n"},
		{"notes", notes, "cape: master: region a.go:3:1 #7: start 2µs, compute 2ms, create 3µs (4 pages, 100 bytes), exchange 10µs = wait 4µs + merge/inject 3µs + send 2µs (sent 10, received 20 bytes); r; 3 page faults in the compute; hints: writes in 2 span(s)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendRegion([]byte("x"), &tt.in))
			if got != "x"+tt.want {
				t.Errorf("AppendRegion:\n got %q\nwant %q", got, "x"+tt.want)
			}
		})
	}
}

func TestNotes(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{FaultNote(-1), ""},
		{FaultNote(0), "; 0 page faults in the compute"},
		{HintNote(false, false, 3), ""},
		{HintNote(true, true, 1), "; hints: writes in 1 span(s), clean stretch"},
		{HintNote(true, false, 0), "; hints: writes in 0 span(s)"},
		{HintNote(false, true, 2), "; hints: clean stretch"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestLogBatches(t *testing.T) {
	now := time.Unix(100, 0)
	var out bytes.Buffer
	l := NewLog(&out, func() time.Time { return now })
	l.Printf("a %d\n", 1) // the first line: the last write was long ago
	if out.String() != "a 1\n" {
		t.Fatalf("after the first line: %q", out.String())
	}
	now = now.Add(FlushEvery / 2)
	l.Printf("b\n")
	if _, err := l.Write([]byte("c\n")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "a 1\n" {
		t.Fatalf("lines written before FlushEvery: %q", out.String())
	}
	now = now.Add(FlushEvery)
	l.Printf("d\n")
	if out.String() != "a 1\nb\nc\nd\n" {
		t.Fatalf("after FlushEvery: %q", out.String())
	}
	big := bytes.Repeat([]byte("x"), FlushBytes-1)
	l.Write(append(big, '\n'))
	if out.Len() != len("a 1\nb\nc\nd\n")+FlushBytes {
		t.Fatalf("FlushBytes pending not written: %d bytes out", out.Len())
	}
	l.Printf("e\n")
	l.Flush()
	if !bytes.HasSuffix(out.Bytes(), []byte("x\ne\n")) {
		t.Fatalf("Flush: %q", out.Bytes()[out.Len()-8:])
	}
	l.Flush() // nothing pending: no write
}

func TestAppendLazy(t *testing.T) {
	tests := []struct {
		in   Lazy
		want string
	}{
		{Lazy{Name: "s.go:1:2", Seq: 4, Node: 2, Size: 100, Pushed: 3, Notices: 7, Eager: true, Fetched: 4096,
			Pages: 1499 * time.Nanosecond, Plan: time.Microsecond, Snapshot: 2500 * time.Nanosecond, Snapped: 9, Copied: 5, Compared: 4, Send: time.Millisecond},
			"cape: master: lazy transfer after region s.go:1:2 #4: node 2: 100 bytes sent (3 pages pushed, 7 write notices, eager true), 4096 bytes of pages fetched since the last exchange; pages 1µs, plan 1µs, snapshot 3µs (9 pages: 5 copied, 4 compared), send 1ms\n"},
		{Lazy{Name: "a", Seq: 1, Node: 1},
			"cape: master: lazy transfer after region a #1: node 1: 0 bytes sent (0 pages pushed, 0 write notices, eager false), 0 bytes of pages fetched since the last exchange; pages 0s, plan 0s, snapshot 0s (0 pages: 0 copied, 0 compared), send 0s\n"},
	}
	for i, tt := range tests {
		if got := string(AppendLazy(nil, &tt.in)); got != tt.want {
			t.Errorf("%d:\n got %q\nwant %q", i, got, tt.want)
		}
	}
}

// TestFaults checks the faults counted between two readings and their note.
func TestFaults(t *testing.T) {
	tests := []struct {
		name       string
		start, end int64
		want       string
	}{
		{"counted", 10, 13, "; 3 page faults in the compute"},
		{"none", 5, 5, "; 0 page faults in the compute"},
		{"no start", -1, 13, ""},
		{"no end", 10, -1, ""},
		{"neither", -1, -1, ""},
	}
	for _, tt := range tests {
		var f Faults
		f.Start(tt.start)
		f.End(tt.end)
		if got := f.Note(); got != tt.want {
			t.Errorf("%s: Start(%d), End(%d): note %q, want %q", tt.name, tt.start, tt.end, got, tt.want)
		}
	}
}

// TestAppendTotals: the totals line sums the regions' lines; none without
// a region.
func TestAppendTotals(t *testing.T) {
	var tot Totals
	if got := AppendTotals(nil, "master", &tot); len(got) != 0 {
		t.Fatalf("no region: %q", got)
	}
	r := Region{Start: time.Microsecond, Compute: 2 * time.Millisecond, Create: 3 * time.Microsecond, Pages: 4, Bytes: 100,
		Exchange: 10 * time.Microsecond, Wait: 4 * time.Microsecond, Merge: 3 * time.Microsecond, Send: 2 * time.Microsecond, Sent: 10, Received: 20}
	tot.Add(&r)
	tot.Add(&r)
	want := "cape: master: totals of 2 regions: 4.028ms = start 2µs + compute 4ms + create 6µs (8 pages, 200 bytes) + exchange 20µs (wait 8µs, merge/inject 6µs, send 4µs); sent 20, received 40 bytes\n"
	if got := string(AppendTotals(nil, "master", &tot)); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
