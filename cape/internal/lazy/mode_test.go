package lazy

import (
	"strings"
	"testing"
)

// TestWant: lazy transfer is used when asked for (lazy, auto) on several
// nodes, never with --verify or a restart; a program whose every region is
// its last (Init(EveryRegionLast())) sends slaves no bytes, so auto does
// not set it up, though lazy by name still does; an unknown mode is an
// error naming it.
func TestWant(t *testing.T) {
	for _, c := range []struct {
		job  Job
		want bool
		err  string
	}{
		{job: Job{Transfer: Auto, Size: 2}, want: true},
		{job: Job{Transfer: Auto, Size: 2, EveryRegionLast: true}},
		{job: Job{Transfer: Lazy, Size: 2, EveryRegionLast: true}, want: true},
		{job: Job{Transfer: Lazy, Size: 1}},
		{job: Job{Transfer: Lazy, Size: 3, Verify: true}},
		{job: Job{Transfer: Auto, Size: 3, Restart: true}},
		{job: Job{Transfer: Eager, Size: 2}},
		{job: Job{Size: 2}},
		{job: Job{Transfer: "Lazy", Size: 2}, err: `"Lazy": want eager, lazy, auto or homes`},
	} {
		got, err := Want(c.job)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: %v, %v; want an error with %q", c.job, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %v, %v; want %v", c.job, got, err, c.want)
		}
	}
}
