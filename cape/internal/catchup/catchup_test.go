package catchup

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestJoiner plays scripts of a joining node's regions: each line is a
// command to the Joiner and, after "=>", what it must answer. Times are
// offsets from the node's start of joining; the node has rank 4.
//
//	begin SEQ LOG [pending]   Begin(SEQ, LOG, pending)
//	next => ACTION            Next at the current time
//	followed LOG [pending]    Followed
//	asked / silent            Asked / Silent
//	heard LIVE AT => ok|TEXT  Heard(LIVE (comma-separated), AT): no error, or one containing TEXT
//	adopt => ok|TEXT          AdoptImage
//	wait DURATION             the clock moves on
//	joined => LIVE | NOTICE   Joined: the live set adopted and the notice
//	summary => TEXT           Summary ("" written as -)
func TestJoiner(t *testing.T) {
	tests := []struct {
		name   string
		script string
	}{
		{"before Begin there is no action", `
			next => Action(0)`},
		{"a node that caught up asks, and replays what the log holds", `
			begin 1 1
			next => follow
			next => follow
			followed 1
			next => ask
			asked
			next => listen
			silent
			next => replay
			next => replay`},
		{"far behind the log: replays without asking", `
			begin 1 10
			next => follow
			followed 10
			next => replay
			begin 2 10
			next => follow
			followed 10
			next => replay`},
		{"ahead of the log: waits, is admitted, joins at the region named", `
			begin 4 3
			next => follow
			followed 3
			next => ask
			asked
			next => listen
			silent
			next => sleep
			next => follow
			followed 3
			next => listen
			heard 0,1,4 3 => ok
			next => join
			wait 1500ms
			joined => 0,1,4 | joined the job: takes a share of region #4 on, 1.5s after it started (replayed regions #1 to #3 from the log)
			begin 5 3
			next => share
			begin 6 3
			next => share
			summary => joined after 1.5s; took a share of 3 regions (#4 to #6)`},
		{"admitted from a later region: replays up to it, then joins without reading the log", `
			begin 4 4
			next => follow
			followed 4
			next => ask
			asked
			next => listen
			heard 0,4 5 => ok
			next => replay
			begin 5 4
			next => follow
			followed 5
			next => listen
			silent
			next => replay
			begin 6 5
			next => join
			joined => 0,4 | takes a share of region #6 on`},
		{"the log grows while the node waits: it replays the new region", `
			begin 3 2
			next => follow
			followed 2
			next => ask
			asked
			next => listen
			silent
			next => sleep
			next => follow
			followed 3
			next => listen
			silent
			next => replay`},
		{"a live set that does not name the node is an error", `
			begin 3 2
			next => follow
			followed 2
			next => ask
			asked
			next => listen
			heard 0,1,5 2 => does not name this node`},
		{"a live set from a region already past is an error", `
			begin 3 2
			next => follow
			followed 2
			next => ask
			asked
			next => listen
			heard 0,4 1 => admitted from region #2, this node is at region #3`},
		{"a pending image: the regions before its point compute", `
			begin 2 0 pending
			next => compute
			next => compute`},
		{"the log compacted while following: compute up to the image", `
			begin 2 5
			next => follow
			adopt => ok
			followed 5 pending
			next => compute`},
		{"an image may not be adopted once the node asked", `
			begin 1 0
			next => follow
			followed 0
			next => ask
			asked
			adopt => had asked to be admitted`},
		{"a slow catch-up asks after the period when the gap stops halving", `
			begin 1 10
			next => follow
			followed 10
			next => replay
			begin 2 10
			wait 600ms
			next => follow
			followed 12
			next => ask`},
		{"a fast catch-up keeps replaying", `
			begin 1 10
			next => follow
			followed 10
			next => replay
			begin 8 12
			wait 600ms
			next => follow
			followed 12
			next => replay`},
		{"the log never shrinks in the node's view", `
			begin 2 5
			next => follow
			followed 1
			next => replay`},
		{"a node that never joined reports nothing", `
			begin 1 1
			summary => -`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			now := start
			j := New(4, start)
			for i, line := range strings.Split(strings.TrimSpace(tt.script), "\n") {
				line = strings.TrimSpace(line)
				if err := step(j, &now, line); err != nil {
					t.Fatalf("line %d %q: %v", i+1, line, err)
				}
			}
		})
	}
}

// step runs one line of a TestJoiner script.
func step(j *Joiner, now *time.Time, line string) error {
	cmd, want, _ := strings.Cut(line, " => ")
	f := strings.Fields(cmd)
	// A malformed number fails the line (not a silent 0, which could pass
	// a case it does not test).
	var numErr error
	num := func(i int) uint64 {
		v, err := strconv.ParseUint(f[i], 10, 64)
		numErr = cmp.Or(numErr, err)
		return v
	}
	if err := stepCmd(j, now, f, want, num); err != nil {
		return err
	}
	return numErr
}

// stepCmd carries out one command of a TestJoiner script, f its fields.
func stepCmd(j *Joiner, now *time.Time, f []string, want string, num func(int) uint64) error {
	pending := len(f) > 0 && f[len(f)-1] == "pending"
	switch f[0] {
	case "begin":
		j.Begin(num(1), num(2), pending)
	case "next":
		if got := j.Next(*now).String(); got != want {
			return fmt.Errorf("Next = %s, want %s", got, want)
		}
	case "followed":
		j.Followed(num(1), pending)
	case "asked":
		j.Asked()
	case "silent":
		j.Silent()
	case "wait":
		d, err := time.ParseDuration(f[1])
		if err != nil {
			return err
		}
		*now = now.Add(d)
	case "heard":
		var live []int
		for _, s := range strings.Split(f[1], ",") {
			r, err := strconv.Atoi(s)
			if err != nil {
				return err
			}
			live = append(live, r)
		}
		return wantErr("Heard", j.Heard(live, num(2)), want)
	case "adopt":
		return wantErr("AdoptImage", j.AdoptImage(), want)
	case "joined":
		wantLive, wantNotice, _ := strings.Cut(want, " | ")
		live, notice := j.Joined(*now)
		if got := strings.Trim(strings.ReplaceAll(fmt.Sprint(live), " ", ","), "[]"); got != wantLive {
			return fmt.Errorf("Joined's live set %s, want %s", got, wantLive)
		}
		if !strings.Contains(notice, wantNotice) {
			return fmt.Errorf("Joined's notice %q, want it to contain %q", notice, wantNotice)
		}
		if !j.Slave() {
			return fmt.Errorf("not a slave after Joined")
		}
	case "summary":
		if want == "-" {
			want = ""
		}
		if got := j.Summary(); got != want {
			return fmt.Errorf("Summary = %q, want %q", got, want)
		}
	default:
		return fmt.Errorf("unknown command %q", f[0])
	}
	return nil
}

// wantErr checks err against a script's expectation: ok, or a text the
// error contains.
func wantErr(op string, err error, want string) error {
	switch {
	case want == "ok" && err != nil:
		return fmt.Errorf("%s: %v, want no error", op, err)
	case want != "ok" && (err == nil || !strings.Contains(err.Error(), want)):
		return fmt.Errorf("%s: %v, want an error containing %q", op, err, want)
	}
	return nil
}

// TestAdmittedKeepsListening checks that an admitted node not yet at its
// first region keeps listening (the master may tell it to leave) and that
// Admitted says so.
func TestAdmittedKeepsListening(t *testing.T) {
	j := New(2, time.Time{})
	j.Begin(3, 4, false)
	if got := j.Next(time.Time{}); got != Follow {
		t.Fatalf("Next = %v, want follow", got)
	}
	j.Followed(4, false)
	if got := j.Next(time.Time{}); got != Ask {
		t.Fatalf("Next = %v, want ask", got)
	}
	j.Asked()
	if j.Admitted() {
		t.Fatal("admitted before any answer")
	}
	if got := j.Next(time.Time{}); got != Listen {
		t.Fatalf("Next = %v, want listen", got)
	}
	if err := j.Heard([]int{0, 2}, 5); err != nil {
		t.Fatal(err)
	}
	if !j.Admitted() || j.Slave() {
		t.Fatalf("Admitted %v, Slave %v; want true, false", j.Admitted(), j.Slave())
	}
	var got []Action
	for seq := uint64(3); seq <= 6; seq++ {
		j.Begin(seq, 5, false)
		for {
			a := j.Next(time.Time{})
			got = append(got, a)
			if a == Follow {
				j.Followed(5, false)
				continue
			}
			if a == Listen {
				j.Silent()
				continue
			}
			if a == Join {
				j.Joined(time.Time{})
			}
			break
		}
	}
	want := []Action{Follow, Listen, Replay, Follow, Listen, Replay, Follow, Listen, Replay, Join}
	if !slices.Equal(got, want) {
		t.Errorf("actions %v, want %v", got, want)
	}
	if s := j.Summary(); !strings.Contains(s, "took a share of 1 region (#6 to #6)") {
		t.Errorf("Summary %q", s)
	}
}
