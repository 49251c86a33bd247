package setup

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cape-go/cape/monitor"
)

func TestAgreeLazy(t *testing.T) {
	for _, c := range []struct {
		name     string
		asked    bool
		ranks    []int
		capable  []bool
		on       bool
		unable   []int
		noticeOK bool
	}{
		{"every slave can", true, []int{1, 2, 3}, []bool{true, true, true}, true, nil, false},
		{"one cannot, asked by name", true, []int{1, 2, 3}, []bool{true, false, true}, false, []int{2}, true},
		{"two cannot, auto: silent", false, []int{1, 2, 3}, []bool{false, true, false}, false, []int{1, 3}, false},
		{"ranks as given", true, []int{9, 4}, []bool{false, false}, false, []int{9, 4}, true},
		{"no slave", true, nil, nil, true, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Plan{LazyAsked: c.asked}
			a := p.AgreeLazy(c.ranks, c.capable)
			if a.On != c.on || !reflect.DeepEqual(a.Unable, c.unable) || (a.Notice != "") != c.noticeOK {
				t.Errorf("got %+v; want on %v, unable %v, notice %v", a, c.on, c.unable, c.noticeOK)
			}
			if c.noticeOK {
				want := fmt.Sprintf("transfer lazy unavailable on node(s) %v: the job uses eager transfer", slices.Sorted(slices.Values(c.unable)))
				if a.Notice != want {
					t.Errorf("notice %q, want %q", a.Notice, want)
				}
			}
		})
	}
}

// A node that cannot fetch pages because of the monitor asked for is told
// so, under the transfer's name.
func TestAgreeLazyNamesMonitor(t *testing.T) {
	p := &Plan{LazyAsked: true, Homes: true, Monitor: "ptrace"}
	a := p.AgreeLazy([]int{2, 1}, []bool{false, false})
	want := "transfer homes unavailable on node(s) [1 2] (--monitor ptrace cannot fetch a page when it is touched: transfer homes needs --monitor uffd or auto): the job uses eager transfer"
	if a.Notice != want {
		t.Errorf("notice %q, want %q", a.Notice, want)
	}
}

func TestSlaveLazy(t *testing.T) {
	for _, c := range []struct {
		capable, on bool
		step        LazyStep
		err         error
	}{
		{true, true, StartHelper, nil},
		{true, false, ReplaceTracker, nil},
		{false, false, KeepTracker, nil},
		{false, true, KeepTracker, ErrLazyRefused},
	} {
		step, err := SlaveLazy(c.capable, c.on)
		if step != c.step || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Errorf("capable %v, on %v: %v, %v; want %v, %v", c.capable, c.on, step, err, c.step, c.err)
		}
	}
}

func TestLazyFallback(t *testing.T) {
	cause := errors.New("userfaultfd: operation not permitted")
	p := &Plan{Name: "node 3", LazyAsked: true}
	if got, want := p.LazyFallback(cause), "node 3: lazy transfer unavailable, using eager: userfaultfd: operation not permitted"; got != want {
		t.Errorf("asked: %q, want %q", got, want)
	}
	p.LazyAsked = false
	if got := p.LazyFallback(cause); got != "" {
		t.Errorf("auto: %q, want none", got)
	}
}

// A slave's lazy tracker needs no privileges: it falls back to a
// user-mode-only userfaultfd, and --stats says which one it has.
func TestLazyOptionsAndMode(t *testing.T) {
	p := &Plan{Name: Name(2)}
	if lo := p.LazyOptions(); !lo.Missing || lo.UserMode != monitor.UserModeFallback {
		t.Errorf("LazyOptions() = %+v, want Missing with UserModeFallback", lo)
	}
	for _, c := range []struct {
		userModeOnly bool
		want         string
	}{
		{true, "node 2: transfer lazy: pages move on first touch, through a user-mode-only userfaultfd"},
		{false, "node 2: transfer lazy: pages move on first touch, through a userfaultfd that serves the kernel's faults too"},
	} {
		if got := p.LazyMode(c.userModeOnly); !strings.HasPrefix(got, c.want) {
			t.Errorf("LazyMode(%v) = %q, want it to start %q", c.userModeOnly, got, c.want)
		}
	}
}
