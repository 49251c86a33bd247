package main

import (
	"strings"
	"testing"
)

// TestLoopEndsChecked runs testdata/loopends, whose loops' ends cape run
// checks before running them (cape.LoopCount): with its default flags it
// prints what go run prints; with a negative step, or an unsigned
// count-down that wraps around below 0 (go run panics), the job stops
// with an error naming the loop and what go run does, never a result.
func TestLoopEndsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	const dir = "./testdata/loopends"
	want := goRun(t, dir)
	bin := sharedBuild(t, dir)
	if out, errText, err := capeRun("2", nil, bin, nil); err != nil || out != want {
		t.Fatalf("cape run -n 2: %v, printed %q, want %q\n%s", err, out, want, errText)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-step", "-1"}, "cape: master: the loop at main.go:21:2 does not end as go run runs it: its step is -1"},
		{[]string{"-from", "9"}, "cape: master: the loop at main.go:30:2 does not end as go run runs it: i (uint) wraps around below 0 before i >= 1 is false"},
	} {
		out, errText, err := capeRun("2", nil, bin, c.args)
		if err == nil || out != "" || !strings.Contains(errText, c.want) {
			t.Errorf("cape run -n 2 %v: %v, printed %q; want a failure with %q\n%s", c.args, err, out, c.want, errText)
		}
	}
}
