//go:build linux

package launch

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// startProc starts a stand-in node running a shell command.
func startProc(t *testing.T, rank int, script string) *proc {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{rank: rank, cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { signalGroup(p, syscall.SIGKILL); <-p.done })
	return p
}

// TestHungWatch: a node is hung once seen stopped at every poll for the
// timeout; a shorter stop is forgotten when the node runs again.
func TestHungWatch(t *testing.T) {
	p := startProc(t, 1, "exec sleep 60")
	procs := []*proc{p}
	const timeout = 3 * time.Second
	h := hungWatch{}
	t0 := time.Now()
	if got := h.check(t0, procs, timeout); got != nil {
		t.Fatal("running node reported hung")
	}
	if err := syscall.Kill(p.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !stopped(p) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := h.check(t0, procs, timeout); got != nil {
		t.Fatal("hung at first sight")
	}
	if got := h.check(t0.Add(timeout-time.Millisecond), procs, timeout); got != nil {
		t.Fatal("hung before the timeout")
	}
	if got := h.check(t0.Add(timeout), procs, timeout); got != p {
		t.Fatal("not hung after the timeout")
	}
	// Continued: a later stop starts from zero.
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGCONT)
	for stopped(p) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := h.check(t0.Add(2*timeout), procs, timeout); got != nil || len(h) != 0 {
		t.Fatalf("continued node: %v, %v", got, h)
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGSTOP)
	for !stopped(p) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := h.check(t0.Add(3*timeout), procs, timeout); got != nil {
		t.Fatal("a second stop counted the first one's time")
	}
}

// TestBlameEvidence: the master's report beats the order of the ends, a
// slave's report is used without the master's, and without reports the one
// node still running is blamed rather than the first to end.
func TestBlameEvidence(t *testing.T) {
	report := func(rs ...nodeenv.Report) *statusPipe {
		s, err := newStatusPipe()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if _, err := s.w.WriteString(r.String()); err != nil {
				t.Fatal(err)
			}
		}
		s.closeWriter()
		return s
	}
	cases := []struct {
		name   string
		status *statusPipe
		want   string
	}{
		{"master's report", report(nodeenv.Report{Rank: 2, Blame: 0, Reason: "r"}, nodeenv.Report{Rank: 0, Blame: 1, Reason: "recv: peer closed the connection"}),
			"node 1 (pid N) failed (seen by the master: recv: peer closed the connection); the job was stopped"},
		{"a slave's report", report(nodeenv.Report{Rank: 2, Blame: 0, Reason: "send: peer closed the connection"}),
			"master (node 0, pid N) exited with status 1 (seen by node 2: send: peer closed the connection)"},
		{"a report naming no node of the job", report(nodeenv.Report{Rank: 0, Blame: 7, Reason: "r"}),
			"node 1 (pid N) failed (still running when every other node had ended); the job was stopped"},
		{"no report", nil,
			"node 1 (pid N) failed (still running when every other node had ended); the job was stopped"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			p0 := startProc(t, 0, "exit 1")
			p1 := startProc(t, 1, "exec sleep 60")
			p2 := startProc(t, 2, "exit 1")
			<-p2.done
			<-p0.done
			j := &supervisor{status: c.status, procs: []*proc{p0, p1, p2}}
			err := j.blame([]*proc{p2, p0})
			got := err.Error()
			for _, p := range j.procs {
				got = strings.ReplaceAll(got, "pid "+strconv.Itoa(p.cmd.Process.Pid), "pid N")
			}
			if got != c.want {
				t.Errorf("blame: %q\nwant   %q", got, c.want)
			}
		})
	}
}

// TestBlameSameEnd: every node ended alike (a usage error every node's
// sequential code makes, status 2), a slave first: the master is named, as
// go run would end; a master that ended otherwise than the first is not.
func TestBlameSameEnd(t *testing.T) {
	for _, c := range []struct {
		master, want string
	}{
		{"exit 2", "master (node 0, pid N) exited with status 2"},
		{"exit 1", "node 2 (pid N) exited with status 2; the job was stopped"},
	} {
		p0 := startProc(t, 0, c.master)
		p1 := startProc(t, 1, "exit 2")
		p2 := startProc(t, 2, "exit 2")
		<-p2.done
		<-p1.done
		<-p0.done
		j := &supervisor{procs: []*proc{p0, p1, p2}}
		got := j.blame([]*proc{p2, p1, p0}).Error()
		for _, p := range j.procs {
			got = strings.ReplaceAll(got, "pid "+strconv.Itoa(p.cmd.Process.Pid), "pid N")
		}
		if got != c.want {
			t.Errorf("master %q: %q\nwant %q", c.master, got, c.want)
		}
	}
}

// TestWatchSurvivesLostSlaves: with --max-lost 1 the watch reports the
// first slave that fails and goes on, the job's outcome is the master's
// (status 0 here), and a second failing slave stops the job naming it.
func TestWatchSurvivesLostSlaves(t *testing.T) {
	var stderr strings.Builder
	newJob := func(procs ...*proc) *supervisor {
		j := &supervisor{grace: time.Second, timeout: 10 * time.Second, maxLost: 1, hungKilled: map[*proc]bool{},
			outs: newOutputs(Spec{Stderr: &stderr}), procs: procs}
		return j
	}
	p0 := startProc(t, 0, "sleep 0.5; exit 0")
	p1 := startProc(t, 1, "kill -9 $$")
	p2 := startProc(t, 2, "sleep 0.3; exit 0")
	if err := newJob(p0, p1, p2).watch(t.Context()); err != nil {
		t.Fatalf("one lost slave of at most 1: %v", err)
	}
	if !strings.Contains(stderr.String(), "node 1 (pid") || !strings.Contains(stderr.String(), "the job goes on without it (1 lost, at most 1)") {
		t.Errorf("the loss is not reported: %q", stderr.String())
	}
	// The master fails after the second loss, as the runtime's master does
	// past --max-lost.
	p0 = startProc(t, 0, "sleep 0.5; exit 1")
	p1 = startProc(t, 1, "exit 1")
	p2 = startProc(t, 2, "sleep 0.3; exit 2")
	err := newJob(p0, p1, p2).watch(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "node 2 (pid") {
		t.Errorf("two lost slaves of at most 1: %v, want node 2 named", err)
	}
}

// TestWatchSlavesStoppedWithTheMaster: a master that reports an error of
// its own (a conflict) tells the slaves to stop, and they may end first:
// their ends are not losses, and the job's error is the master's.
func TestWatchSlavesStoppedWithTheMaster(t *testing.T) {
	var stderr strings.Builder
	s, err := newStatusPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.WriteString(nodeenv.Report{Rank: 0, Blame: 0, Reason: "conflict"}.String()); err != nil {
		t.Fatal(err)
	}
	s.closeWriter()
	p0 := startProc(t, 0, "sleep 0.3; exit 1")
	p1 := startProc(t, 1, "exit 1")
	j := &supervisor{grace: time.Second, timeout: 10 * time.Second, maxLost: -1, hungKilled: map[*proc]bool{},
		outs: newOutputs(Spec{Stderr: &stderr}), procs: []*proc{p0, p1}, status: s}
	err = j.watch(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "master (node 0") {
		t.Errorf("watch: %v, want the master named", err)
	}
	if strings.Contains(stderr.String(), "lost") {
		t.Errorf("a slave stopped with the master is reported as lost: %q", stderr.String())
	}
}

// TestWatchDeclaredLostNotBlamed: a slave the master declared lost and went
// on without is a loss within the cap even when its end is seen after the
// master failed on a later loss: the job's error names the later one.
func TestWatchDeclaredLostNotBlamed(t *testing.T) {
	var stderr strings.Builder
	s, err := newStatusPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.WriteString(nodeenv.Lost{Rank: 1, Reason: "declared lost in region #1"}.String()); err != nil {
		t.Fatal(err)
	}
	s.closeWriter()
	p0 := startProc(t, 0, "sleep 0.2; exit 1")
	p1 := startProc(t, 1, "sleep 0.4; kill -9 $$") // its end seen last
	p2 := startProc(t, 2, "sleep 0.1; kill -9 $$")
	j := &supervisor{grace: time.Second, timeout: 10 * time.Second, maxLost: 1, hungKilled: map[*proc]bool{},
		lostKilled: map[*proc]bool{}, outs: newOutputs(Spec{Stderr: &stderr}), procs: []*proc{p0, p1, p2}, status: s}
	err = j.watch(t.Context())
	if err == nil || strings.HasPrefix(err.Error(), "node 1 (pid") {
		t.Errorf("watch: %v, want node 1 not named", err)
	}
	if !strings.Contains(stderr.String(), "the master had declared it lost") {
		t.Errorf("node 1's loss is not reported: %q", stderr.String())
	}
}

// TestWatchMasterEndedItsProgram: a master whose program ended by itself
// with a status of its own (os.Exit(3) after the job's end) said so on the
// status pipe; a slave killed whose end is seen after the master's is a
// loss, and the job's status is the program's, 3 (it was the killed
// slave's 137). Without the word, the killed slave is the cause.
func TestWatchMasterEndedItsProgram(t *testing.T) {
	for _, said := range []bool{true, false} {
		var stderr strings.Builder
		s, err := newStatusPipe()
		if err != nil {
			t.Fatal(err)
		}
		if said {
			if _, err := s.w.WriteString(nodeenv.Ended{Rank: 0, How: "finalized"}.String()); err != nil {
				t.Fatal(err)
			}
		}
		s.closeWriter()
		p0 := startProc(t, 0, "exit 3")
		p1 := startProc(t, 1, "sleep 0.1; kill -9 $$") // its end seen after the master's, within settle
		j := &supervisor{grace: 2 * time.Second, timeout: 10 * time.Second, maxLost: -1, hungKilled: map[*proc]bool{},
			lostKilled: map[*proc]bool{}, outs: newOutputs(Spec{Stderr: &stderr}), procs: []*proc{p0, p1}, status: s}
		err = j.watch(t.Context())
		var ee *ExitError
		switch {
		case !errors.As(err, &ee):
			t.Errorf("said %v: watch: %v, want an exit error", said, err)
		case said && (ee.Code != 3 || !strings.HasPrefix(err.Error(), "master (node 0")):
			t.Errorf("said %v: watch: %v (status %d), want the master's status 3", said, err, ee.Code)
		case !said && ee.Code != 137:
			t.Errorf("said %v: watch: %v (status %d), want the killed slave's 137", said, err, ee.Code)
		}
	}
}
