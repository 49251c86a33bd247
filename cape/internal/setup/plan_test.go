package setup

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

var rt = Runtime{ArenaSize: 1 << 30, MaxJoiners: 64}

// want is the part of a Plan a case checks; the zero value of a field is
// checked too.
type want struct {
	role          Role
	name          string
	tracker       Tracker
	lazy          bool
	startup       []wire.Phase
	capture, drop bool
	verify        bool
	admission     bool
	watchMaster   bool
	lifeline      bool
	complete      bool // the checkpoint mode is exchange.Complete
}

func TestNew(t *testing.T) {
	lifeline := os.Stdin
	stdinOnly := []wire.Phase{wire.PhaseStdin}
	lazyStdin := []wire.Phase{wire.PhaseLazy, wire.PhaseStdin}
	cases := []struct {
		name string
		cfg  nodeenv.Config
		rt   Runtime
		want want
	}{
		{"single", nodeenv.Config{Size: 1}, rt,
			want{role: Single, name: "master"}},
		{"single, every setting ignored", nodeenv.Config{Size: 1, Compress: "lz4", Transfer: "sometimes", Monitor: "complete"}, rt,
			want{role: Single, name: "master"}},
		{"single --verify captures", nodeenv.Config{Size: 1, Verify: true}, rt,
			want{role: Single, name: "master", capture: true, verify: true}},
		{"single with a log has a tracker", nodeenv.Config{Size: 1, Checkpoint: "/ck"}, rt,
			want{role: Single, name: "master", tracker: PlainTracker}},
		{"single restart", nodeenv.Config{Size: 1, Checkpoint: "/ck", Restart: true}, rt,
			want{role: Single, name: "master", tracker: PlainTracker}},
		{"master eager", nodeenv.Config{Size: 3, Transfer: "eager"}, rt,
			want{role: Master, name: "master", tracker: PlainTracker, startup: stdinOnly, capture: true}},
		{"slave eager", nodeenv.Config{Size: 3, Rank: 2, Transfer: "eager"}, rt,
			want{role: Slave, name: "node 2", tracker: PlainTracker, startup: stdinOnly, capture: true, watchMaster: true}},
		{"unset transfer is eager", nodeenv.Config{Size: 2, Rank: 1}, rt,
			want{role: Slave, name: "node 1", tracker: PlainTracker, startup: stdinOnly, capture: true, watchMaster: true}},
		{"master lazy keeps a plain tracker", nodeenv.Config{Size: 2, Transfer: "lazy"}, rt,
			want{role: Master, name: "master", tracker: PlainTracker, lazy: true, startup: lazyStdin, capture: true}},
		{"slave lazy", nodeenv.Config{Size: 2, Rank: 1, Transfer: "lazy"}, rt,
			want{role: Slave, name: "node 1", tracker: LazyTracker, lazy: true, startup: lazyStdin, capture: true, watchMaster: true}},
		{"slave auto, uffd", nodeenv.Config{Size: 2, Rank: 1, Transfer: "auto", Monitor: "uffd"}, rt,
			want{role: Slave, name: "node 1", tracker: LazyTracker, lazy: true, startup: lazyStdin, capture: true, watchMaster: true}},
		{"slave lazy, compare backend: no lazy tracker", nodeenv.Config{Size: 2, Rank: 1, Transfer: "lazy", Monitor: "compare"}, rt,
			want{role: Slave, name: "node 1", tracker: PlainTracker, lazy: true, startup: lazyStdin, capture: true, watchMaster: true}},
		{"auto, every region last: eager", nodeenv.Config{Size: 2, Rank: 1, Transfer: "auto"}, Runtime{EveryRegionLast: true},
			want{role: Slave, name: "node 1", tracker: PlainTracker, startup: stdinOnly, capture: true, watchMaster: true}},
		{"lazy, every region last: still lazy", nodeenv.Config{Size: 2, Rank: 1, Transfer: "lazy"}, Runtime{EveryRegionLast: true},
			want{role: Slave, name: "node 1", tracker: LazyTracker, lazy: true, startup: lazyStdin, capture: true, watchMaster: true}},
		{"--verify keeps eager, master verifies", nodeenv.Config{Size: 2, Transfer: "lazy", Verify: true}, rt,
			want{role: Master, name: "master", tracker: PlainTracker, startup: stdinOnly, capture: true, verify: true}},
		{"--verify on a slave: it does not verify", nodeenv.Config{Size: 2, Rank: 1, Transfer: "lazy", Verify: true}, rt,
			want{role: Slave, name: "node 1", tracker: PlainTracker, startup: stdinOnly, capture: true, watchMaster: true}},
		{"restart keeps eager and replays", nodeenv.Config{Size: 2, Transfer: "lazy", Checkpoint: "/ck", Restart: true}, rt,
			want{role: Master, name: "master", tracker: PlainTracker, startup: []wire.Phase{wire.PhaseStdin, wire.PhaseReplay},
				capture: true, admission: true}},
		{"restarted slave", nodeenv.Config{Size: 2, Rank: 1, Restart: true}, rt,
			want{role: Slave, name: "node 1", tracker: PlainTracker, startup: []wire.Phase{wire.PhaseStdin, wire.PhaseReplay},
				capture: true, watchMaster: true}},
		{"master with a log admits joiners", nodeenv.Config{Size: 2, Checkpoint: "/ck"}, rt,
			want{role: Master, name: "master", tracker: PlainTracker, startup: stdinOnly, capture: true, admission: true}},
		{"joining node follows no start-up", nodeenv.Config{Size: 2, Rank: 2, JoinDir: "/ck", Checkpoint: "/ck", Transfer: "eager"}, rt,
			want{role: Joiner, name: "node 2", tracker: PlainTracker, capture: true}},
		{"complete backend: complete checkpoints", nodeenv.Config{Size: 2, Rank: 1, Monitor: "complete"}, rt,
			want{role: Slave, name: "node 1", tracker: PlainTracker, startup: stdinOnly, capture: true, watchMaster: true, complete: true}},
		{"scheduled slave drops its output", nodeenv.Config{Size: 2, Rank: 1, Scheduler: nodeenv.SchedSlurm}, rt,
			want{role: Slave, name: "node 1", tracker: PlainTracker, startup: stdinOnly, capture: true, drop: true, watchMaster: true}},
		{"scheduled master keeps its output", nodeenv.Config{Size: 2, Scheduler: nodeenv.SchedSlurm}, rt,
			want{role: Master, name: "master", tracker: PlainTracker, startup: stdinOnly, capture: true}},
		{"lifeline", nodeenv.Config{Size: 2, Rank: 1, Lifeline: lifeline}, rt,
			want{role: Slave, name: "node 1", tracker: PlainTracker, startup: stdinOnly, capture: true, watchMaster: true, lifeline: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(&c.cfg, c.rt)
			if err != nil {
				t.Fatal(err)
			}
			_, complete := p.Checkpoints.(exchange.Complete)
			got := want{role: p.Role, name: p.Name, tracker: p.Tracker, lazy: p.Lazy, startup: p.Startup,
				capture: p.CaptureOutput, drop: p.DropStdout, verify: p.Verify, admission: p.Admission,
				watchMaster: p.WatchMaster, lifeline: p.WatchLifeline, complete: complete}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("plan\n got %+v\nwant %+v", got, c.want)
			}
			if p.Rank != c.cfg.Rank || p.Stats != c.cfg.Stats {
				t.Errorf("rank %d, stats %v; want %d, %v", p.Rank, p.Stats, c.cfg.Rank, c.cfg.Stats)
			}
			if (p.Tracker != NoTracker) != (p.Checkpoints != nil) {
				t.Errorf("tracker %v with checkpoint mode %v", p.Tracker, p.Checkpoints)
			}
		})
	}
}

// TestNewStats checks that --stats reaches the plan on every role.
func TestNewStats(t *testing.T) {
	for _, cfg := range []nodeenv.Config{{Size: 1, Stats: true}, {Size: 2, Stats: true}, {Size: 2, Rank: 1, Stats: true}} {
		p, err := New(&cfg, rt)
		if err != nil || !p.Stats {
			t.Errorf("%+v: stats %v, %v", cfg, p != nil && p.Stats, err)
		}
	}
}

func TestNewMonitor(t *testing.T) {
	for _, c := range []struct {
		asked, want string
		notices     bool
		rank        int
	}{
		{"", monitor.BackendAuto, true, 0},
		{"compare", "compare", true, 0},
		{"uffd", "uffd", false, 1},
		{"", monitor.BackendAuto, false, 3},
	} {
		p, err := New(&nodeenv.Config{Size: 4, Rank: c.rank, Monitor: c.asked}, rt)
		if err != nil {
			t.Fatal(err)
		}
		if p.Monitor != c.want || p.MonitorNotices != c.notices {
			t.Errorf("monitor %q on rank %d: %q, notices %v; want %q, %v", c.asked, c.rank, p.Monitor, p.MonitorNotices, c.want, c.notices)
		}
	}
}

func TestNewCompression(t *testing.T) {
	for _, c := range []struct {
		asked string
		want  delta.Compression
	}{
		{"", delta.Auto}, {"auto", delta.Auto}, {"none", delta.None}, {"s2", delta.S2}, {"zstd", delta.Zstd},
	} {
		p, err := New(&nodeenv.Config{Size: 2, Compress: c.asked}, rt)
		if err != nil || p.Compression != c.want {
			t.Errorf("compress %q: %v, %v; want %v", c.asked, p.Compression, err, c.want)
		}
	}
}

// TestNewRefused checks the settings a multi-node job refuses, with the
// texts they have always had.
func TestNewRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  nodeenv.Config
		want string
		is   error
	}{
		{nodeenv.Config{Size: 2, Compress: "lz4"}, "", delta.ErrCompression},
		{nodeenv.Config{Size: 2, Rank: 1, Transfer: "sometimes"}, `monitor "auto": CAPE_TRANSFER="sometimes": want eager, lazy, auto or homes`, nil},
		{nodeenv.Config{Size: 2, Transfer: "Lazy", Monitor: "uffd"}, `monitor "uffd": CAPE_TRANSFER="Lazy": want eager, lazy, auto or homes`, nil},
	} {
		p, err := New(&c.cfg, rt)
		if err == nil {
			t.Errorf("%+v: plan %+v, want an error", c.cfg, p)
			continue
		}
		if c.want != "" && err.Error() != c.want {
			t.Errorf("%+v: %q, want %q", c.cfg, err, c.want)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%+v: %v, want %v", c.cfg, err, c.is)
		}
	}
}

func TestNewTransport(t *testing.T) {
	token := []byte("secret")
	cfg := nodeenv.Config{Size: 3, Rank: 1, Job: 0x42, Token: token, Broadcast: "tree", MaxLost: -1,
		PeerTimeout: 2 * time.Second, Checkpoint: "/ck"}
	p, err := New(&cfg, Runtime{ArenaSize: 1 << 30, MaxJoiners: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := transport.Config{Token: token, JobID: 0x42, Size: 3, Broadcast: "tree", HealRelay: true,
		MaxFrame: 2<<30 + 1<<20, PeerTimeout: 2 * time.Second, MaxJoin: 7,
		// A short --timeout does not shorten start-up below the default.
		HandshakeTimeout: transport.DefaultHandshakeTimeout}
	if !reflect.DeepEqual(p.Transport, want) {
		t.Errorf("transport\n got %+v\nwant %+v", p.Transport, want)
	}
	// A small arena keeps the transport's default frame bound; no losses
	// allowed, no relay healing; no log, no joiners; no timeout, the
	// transport's.
	p, err = New(&nodeenv.Config{Size: 2, MaxLost: 0}, Runtime{ArenaSize: 1 << 20, MaxJoiners: 7})
	if err != nil {
		t.Fatal(err)
	}
	tc := p.Transport
	if tc.MaxFrame != transport.DefaultMaxFrame || tc.HealRelay || tc.MaxJoin != 0 || tc.PeerTimeout != 0 || tc.HandshakeTimeout != 0 {
		t.Errorf("defaults: %+v", tc)
	}
}

func TestName(t *testing.T) {
	for rank, want := range []string{"master", "node 1", "node 2"} {
		if got := Name(rank); got != want {
			t.Errorf("Name(%d) = %q, want %q", rank, got, want)
		}
	}
	if s := Joiner.String(); !strings.Contains(s, "joining") {
		t.Errorf("Joiner: %q", s)
	}
}

// TestHomesPlan checks what --transfer homes plans: every node, the master
// included, a lazy tracker, with --checkpoint too (its log then holds
// images); a restart replays with the eager transfer.
func TestHomesPlan(t *testing.T) {
	for _, rank := range []int{0, 1} {
		for _, ck := range []string{"", "/tmp/x"} {
			p, err := New(&nodeenv.Config{Rank: rank, Size: 3, Transfer: "homes", Checkpoint: ck}, Runtime{})
			if err != nil {
				t.Fatal(err)
			}
			if !p.Homes || !p.Lazy || p.Tracker != LazyTracker {
				t.Errorf("rank %d, checkpoint %q: homes %v lazy %v tracker %v", rank, ck, p.Homes, p.Lazy, p.Tracker)
			}
		}
	}
	p, err := New(&nodeenv.Config{Rank: 0, Size: 3, Transfer: "homes", Checkpoint: "/tmp/x", Restart: true}, Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Homes || p.Lazy {
		t.Errorf("restart: homes %v lazy %v, want eager", p.Homes, p.Lazy)
	}
}

// TestAutoPlan checks what the default transfer (auto) plans: distributed
// homes where losses may be survived, silently lazy transfer with
// --max-lost 0 or a checkpoint log.
func TestAutoPlan(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   nodeenv.Config
		homes bool
	}{
		{"no cap", nodeenv.Config{Size: 3, Transfer: "auto", MaxLost: -1}, true},
		{"a cap", nodeenv.Config{Size: 3, Rank: 2, Transfer: "auto", MaxLost: 1}, true},
		{"--max-lost 0", nodeenv.Config{Size: 3, Transfer: "auto", MaxLost: 0}, false},
		{"a checkpoint log", nodeenv.Config{Size: 3, Transfer: "auto", MaxLost: -1, Checkpoint: "/tmp/x"}, false},
	} {
		p, err := New(&c.cfg, Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Homes != c.homes || !p.Lazy {
			t.Errorf("%s: homes %v lazy %v; want homes %v, lazy", c.name, p.Homes, p.Lazy, c.homes)
		}
	}
}
