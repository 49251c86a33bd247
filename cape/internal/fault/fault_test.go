package fault

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

func TestParseOne(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *Spec
		err  string // a part of the error; "" if accepted
	}{
		{"", nil, ""},
		{"node=2,at=create,do=crash", &Spec{Node: 2, At: "create", Do: "crash", After: DefaultAfter, Pause: DefaultPause}, ""},
		{"node=1, at=init ,do=exit", &Spec{Node: 1, At: "init", Do: "exit", After: DefaultAfter, Pause: DefaultPause}, ""},
		{"node=1,at=compute,do=pause,after=5ms,for=1s,region=4", &Spec{Node: 1, At: "compute", Do: "pause", Region: 4, After: 5 * time.Millisecond, Pause: time.Second}, ""},
		{"node=0,at=stdin,do=cut,after=1s", &Spec{Node: 0, At: "stdin", Do: "cut", After: time.Second, Pause: DefaultPause}, ""},
		{"node=1", nil, "node, at and do are required"},
		{"node=-1,at=init,do=exit", nil, "want a rank"},
		{"node=1,at=init,do=stall,region=0", nil, "region number from 1"},
		{"node=1,at=lunch,do=exit", nil, "want one of init"},
		{"node=1,at=init,do=dance", nil, "want one of crash"},
		{"node=1,at=init,do=exit,after=-1s", nil, "want a duration"},
		{"node=1,at=init,do=exit,for=soon", nil, "want a duration"},
		{"node=1,at=init,do=exit,colour=red", nil, "unknown key"},
		{"node", nil, "is not key=value"},
		{"node=1,at=stdin,do=cut", nil, "do=cut goes with at=stdin and node=0"},
		{"node=0,at=init,do=cut", nil, "do=cut goes with at=stdin"},
		{"node=0,at=stdin,do=crash", nil, "do=cut goes with at=stdin"},
	} {
		got, err := ParseOne(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseOne(%q) = %+v, %v; want an error with %q", c.in, got, err, c.err)
		case c.err != "" && !strings.Contains(err.Error(), nodeenv.Fault):
			t.Errorf("ParseOne(%q): error %q does not name %s", c.in, err, nodeenv.Fault)
		case c.err == "" && err != nil:
			t.Errorf("ParseOne(%q): %v", c.in, err)
		case c.err == "" && (got == nil) != (c.want == nil), got != nil && *got != *c.want:
			t.Errorf("ParseOne(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseSeveral(t *testing.T) {
	s, err := Parse("node=1,at=create,do=crash; ;node=2,at=start,do=drop,region=3")
	if err != nil || s.Len() != 2 {
		t.Fatalf("Parse: %d faults, %v", s.Len(), err)
	}
	if _, err := Parse("node=1,at=create,do=crash;node=2"); err == nil {
		t.Fatal("a set with one bad fault was accepted")
	}
	if s, err := Parse(""); err != nil || s.Len() != 0 {
		t.Fatalf("Parse(\"\") = %d faults, %v", s.Len(), err)
	}
}

// TestAt checks the firing decision over a script of points: each fault
// fires once, on its node, at its point and region; a compute fault is
// handed out, deferred, at its region's start.
func TestAt(t *testing.T) {
	type call struct {
		rank     int
		at       string
		region   uint64
		want     string // "at/do" of the fault fired, "" none
		deferred bool
	}
	for _, c := range []struct {
		spec  string
		calls []call
	}{
		{"node=2,at=create,do=crash", []call{
			{1, "create", 1, "", false}, {2, "start", 1, "", false}, {2, "create", 1, "create/crash", false}, {2, "create", 2, "", false}}},
		{"node=1,at=start,do=drop,region=3", []call{
			{1, "start", 1, "", false}, {1, "start", 2, "", false}, {1, "start", 3, "start/drop", false}, {1, "start", 4, "", false}}},
		{"node=1,at=compute,do=pause,region=2", []call{
			{1, "start", 1, "", false}, {1, "start", 2, "compute/pause", true}, {1, "start", 3, "", false}}},
		{"node=0,at=init,do=exit;node=0,at=exchange,do=crash", []call{
			{0, "exchange", 1, "exchange/crash", false}, {0, "init", 0, "init/exit", false}, {0, "init", 0, "", false}}},
		{"node=0,at=stdin,do=cut", []call{{0, "start", 1, "", false}, {0, "init", 0, "", false}}},
	} {
		s, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range c.calls {
			f, deferred := s.At(k.rank, k.at, k.region)
			got := ""
			if f != nil {
				got = f.At + "/" + f.Do
			}
			if got != k.want || deferred != k.deferred {
				t.Errorf("%s: call %d At(%d, %s, %d) = %q, %v; want %q, %v", c.spec, i, k.rank, k.at, k.region, got, deferred, k.want, k.deferred)
			}
		}
	}
}

func TestTake(t *testing.T) {
	s, err := Parse("node=0,at=stdin,do=cut,after=20ms;node=0,at=init,do=exit")
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Take(1, "stdin"); f != nil {
		t.Fatalf("node 1 took %+v", f)
	}
	if f := s.Take(0, "stdin"); f == nil || f.After != 20*time.Millisecond {
		t.Fatalf("Take(0, stdin) = %+v", f)
	}
	if f := s.Take(0, "stdin"); f != nil || s.Len() != 1 {
		t.Fatalf("the stdin fault fired twice, or took another: %+v, %d left", f, s.Len())
	}
	var none *Set
	if f, _ := none.At(0, "init", 0); f != nil || none.Take(0, "stdin") != nil || none.Len() != 0 {
		t.Fatal("a nil set holds faults")
	}
}

// FuzzParseFault checks the CAPE_FAULT parser: no panic, and an accepted
// fault is complete, valid, and prints back to the same fault.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"node=2,at=create,do=crash", "node=0,at=send,do=drop,region=3", "node=1", "at=init",
		"node=-1,at=init,do=exit", "node=1,at=init,do=stall,region=0", "node=1, at=init ,do=exit", "x=y", "node",
		"node=1,at=compute,do=pause,after=5ms,for=1s", "node=1,at=broadcast,do=crash,after=-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ft, err := ParseOne(s)
		if err != nil {
			if !strings.Contains(err.Error(), nodeenv.Fault) {
				t.Fatalf("%q: error %q does not name %s", s, err, nodeenv.Fault)
			}
			return
		}
		if ft == nil {
			if s != "" {
				t.Fatalf("%q: no fault and no error", s)
			}
			return
		}
		if ft.Node < 0 || !slices.Contains(Points, ft.At) || !slices.Contains(Actions, ft.Do) {
			t.Fatalf("%q: accepted %+v", s, ft)
		}
		out := fmt.Sprintf("node=%d,at=%s,do=%s", ft.Node, ft.At, ft.Do)
		if ft.Region != 0 {
			out += fmt.Sprintf(",region=%d", ft.Region)
		}
		out += fmt.Sprintf(",after=%v,for=%v", ft.After, ft.Pause)
		again, err := ParseOne(out)
		if err != nil || *again != *ft {
			t.Fatalf("%q gave %+v, printed %q, parsed back as %+v, %v", s, ft, out, again, err)
		}
	})
}
