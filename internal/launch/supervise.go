package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// proc is one node as the supervisor sees it: a local node process, or the
// ssh client that runs a remote one.
type proc struct {
	rank int
	host string // remote host, "" for a local node
	cmd  *exec.Cmd
	done chan struct{}
	err  error  // from Wait, set before done is closed
	stop func() // if set, called before the node is signalled (e.g. closes ssh's stdin)
}

// supervisor watches a job's nodes and decides the job's outcome: it stops
// every node when one fails, when the master ends and a slave lingers, when
// a local node stays stopped (hung) for the peer timeout, or when the user
// interrupts, and it names the node the evidence points to. Its methods are
// called from the launching goroutine, except terminate and killAll, which
// are safe for concurrent use.
type supervisor struct {
	grace   time.Duration // between SIGTERM and SIGKILL
	timeout time.Duration // the peer timeout: a node stopped this long is hung
	outs    *outputs
	status  *statusPipe
	procs   []*proc
	once    sync.Once
	// maxLost is how many slaves the job may lose and go on (negative: no
	// cap; see nodeenv.Config.MaxLost); lost counts them.
	maxLost, lost int
	hungKilled    map[*proc]bool // slaves killed for being stopped past the peer timeout
	lostKilled    map[*proc]bool // slaves stopped because the master declared them lost

	mu sync.Mutex
	// mu protects the following field.
	stopping bool // terminate was called: later deaths are its doing
}

// defaultPeerTimeout is the transport's default peer timeout, used when the
// job does not set one (cape run --timeout).
const defaultPeerTimeout = 10 * time.Second

func newSupervisor(s Spec) (*supervisor, error) {
	j := &supervisor{grace: s.Grace, timeout: defaultPeerTimeout, outs: newOutputs(s),
		maxLost: s.Node.MaxLost, hungKilled: map[*proc]bool{}, lostKilled: map[*proc]bool{}}
	if j.grace == 0 {
		j.grace = 2 * time.Second
	}
	if s.Node.Timeout != "" {
		d, err := time.ParseDuration(s.Node.Timeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("peer timeout %q: want a positive duration", s.Node.Timeout)
		}
		j.timeout = d
	}
	if s.Nodes > 1 {
		var err error
		if j.status, err = newStatusPipe(); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// add records a started node and waits for it in the background.
func (j *supervisor) add(p *proc) {
	p.done = make(chan struct{})
	j.procs = append(j.procs, p)
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
}

// started is called once every node is started: the launcher's copy of the
// status pipe's write end is closed, so that the pipe ends with the nodes.
func (j *supervisor) started() { j.status.closeWriter() }

// close kills whatever is left (a launch that failed half-way) and flushes
// the nodes' output.
func (j *supervisor) close() {
	j.killAll()
	j.status.closeWriter()
	j.outs.drain(2 * time.Second)
	j.outs.flush()
}

// status describes how a node ended and whether that is a failure.
func status(p *proc) (desc string, code int, failed bool) {
	if p.err == nil {
		return "exited with status 0", 0, false
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal()), 128 + int(ws.Signal()), true
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode()), ee.ExitCode(), true
	}
	return p.err.Error(), 1, true
}

func ended(p *proc) bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func nodeName(p *proc) string {
	if p.host != "" {
		return fmt.Sprintf("node %d on %s (ssh pid %d)", p.rank, p.host, p.cmd.Process.Pid)
	}
	if p.rank == 0 {
		return fmt.Sprintf("master (node 0, pid %d)", p.cmd.Process.Pid)
	}
	return fmt.Sprintf("node %d (pid %d)", p.rank, p.cmd.Process.Pid)
}

// settle is how long watch waits after a first failure for other nodes to
// end and report, so that it blames the node that failed first (a killed
// slave) rather than the nodes that failed because of it (the master losing
// it).
const settle = 300 * time.Millisecond

// watch waits for the job to end and decides its outcome.
func (j *supervisor) watch(ctx context.Context) error {
	endc := make(chan *proc, len(j.procs))
	for _, p := range j.procs {
		go func() { <-p.done; endc <- p }()
	}
	poll := time.NewTicker(min(max(j.timeout/8, 50*time.Millisecond), 500*time.Millisecond))
	defer poll.Stop()
	hung := hungWatch{}
	remaining := len(j.procs)
	var (
		result   error
		failures []*proc          // in the order their ends were seen
		settled  <-chan time.Time // a failure was seen: decide, then stop the job
		deadline <-chan time.Time // the master ended: the slaves have this long
	)
	decide := func() {
		if result == nil && len(failures) > 0 {
			result = j.blame(failures)
		}
	}
	for remaining > 0 {
		select {
		case p := <-endc:
			remaining--
			_, _, failed := status(p)
			if failed && j.survive(p) {
				continue
			}
			if failed && !j.terminating() {
				failures = append(failures, p)
				if settled == nil && result == nil {
					settled = time.After(settle)
				}
			}
			if p.rank == 0 && remaining > 0 && !failed {
				// Slaves end by themselves after the master's last
				// message; do not wait for a stuck one forever.
				deadline = time.After(j.grace)
			}
		case rank := <-j.status.lostRanks():
			j.killLost(rank)
		case <-settled:
			settled = nil
			decide()
			j.terminate()
		case <-deadline:
			deadline = nil
			j.terminate()
		case now := <-poll.C:
			if result != nil || j.terminating() || deadline != nil {
				// Once the master has ended well, a lingering slave
				// (say, a stopped one it declared lost) gets the grace
				// period and is stopped: it is not the job's failure.
				continue
			}
			if p := hung.check(now, j.procs, j.timeout); p != nil && !j.killHung(p) {
				result = hungError(p, j.timeout)
				j.terminate()
			}
		case <-ctx.Done():
			decide()
			if result == nil {
				result = interrupted(ctx)
			}
			ctx = context.Background()
			j.terminate()
		}
	}
	decide()
	return result
}

// mayLose reports whether the job may lose one more slave.
func (j *supervisor) mayLose() bool { return j.maxLost < 0 || j.lost < j.maxLost }

// survive reports whether the job goes on after slave p failed: the
// master still runs and --max-lost allows one more loss (the master
// re-executes the slave's work). The loss is reported on the job's stderr.
func (j *supervisor) survive(p *proc) bool {
	if p.rank == 0 || j.terminating() {
		return false
	}
	// A slave the master declared lost: the master went on without it,
	// whatever became of the job after; a loss within the cap, never the
	// job's cause. (Its end may be seen before the master's word.)
	declared := func() bool {
		if !j.status.declaredLost(p.rank) {
			return false
		}
		j.noteLost(p, "the master had declared it lost and re-ran its work")
		return true
	}
	if declared() {
		return true
	}
	if j.masterFailing() {
		// The master is stopping the job for an error of its own (a
		// conflict, a refusal) and told the slaves: this one stopped
		// with it, which is neither a loss nor the job's cause.
		return true
	}
	if !j.mayLose() {
		return false
	}
	goes := "the job goes on without it"
	if m := j.procs[0]; ended(m) {
		// A master that ended with a failure of its own program (a
		// status it chose, a panic) said so first: that status is the
		// job's, and this slave's end after it is not the cause.
		desc, _, failed := status(m)
		if failed && !j.status.masterEnded(100*time.Millisecond) {
			return declared()
		}
		if failed {
			// Both ended, the master's program first: not a loss.
			sd, _, _ := status(p)
			j.note(fmt.Sprintf("cape: %s %s at %s, after the master's program had ended (it %s)\n",
				nodeName(p), sd, time.Now().Format("15:04:05.000"), desc))
			return true
		}
		goes = "the master had completed the job"
	}
	j.noteLost(p, goes)
	return true
}

// noteLost counts slave p lost and says so on the job's stderr: how it
// ended, and goes, what became of the job.
func (j *supervisor) noteLost(p *proc, goes string) {
	j.lost++
	desc, _, _ := status(p)
	if j.hungKilled[p] {
		desc = fmt.Sprintf("was stopped for the peer timeout (%v) and killed", j.timeout)
	}
	if j.lostKilled[p] {
		desc = "was declared lost by the master and stopped"
	}
	limit := "no cap"
	if j.maxLost >= 0 {
		limit = fmt.Sprintf("at most %d", j.maxLost)
	}
	j.note(fmt.Sprintf("cape: %s %s at %s; %s (%d lost, %s)\n",
		nodeName(p), desc, time.Now().Format("15:04:05.000"), goes, j.lost, limit))
}

// masterFailing reports whether the master reported a failure that it
// blames on itself, waiting briefly for the report: the master reports
// before it tells the slaves to stop, but the report may still be in the
// status pipe when a slave's end is seen.
func (j *supervisor) masterFailing() bool {
	for wait := 0; wait < 20; wait++ {
		for _, rep := range j.status.reports(0) {
			if rep.Rank == 0 && rep.Blame == 0 {
				return true
			}
		}
		if m := j.procs[0]; ended(m) || j.status == nil {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// killHung kills slave p, stopped for the peer timeout, when the job may
// lose it (the master has declared it lost, or will); it reports whether it
// did.
func (j *supervisor) killHung(p *proc) bool {
	if p.rank == 0 || ended(j.procs[0]) || !j.mayLose() {
		return false
	}
	if !j.hungKilled[p] {
		j.hungKilled[p] = true
		signalGroup(p, syscall.SIGKILL)
		resumeGroup(p)
	}
	return true
}

// killLost stops slave rank, which the master declared lost: the job goes
// on without it, and must not wait for it to end by itself (a straggler
// may take any time). A local node's process group is killed; a remote
// node's ssh session is ended (its standard input, the node's lifeline,
// closed) and the ssh client killed.
func (j *supervisor) killLost(rank int) {
	for _, p := range j.procs {
		if p.rank != rank || rank == 0 || ended(p) || j.lostKilled[p] {
			continue
		}
		j.lostKilled[p] = true
		if p.stop != nil {
			p.stop()
		}
		signalGroup(p, syscall.SIGKILL)
		resumeGroup(p)
	}
}

// note writes a line of the launcher's own on the job's stderr.
func (j *supervisor) note(line string) {
	j.outs.mu.Lock()
	defer j.outs.mu.Unlock()
	if j.outs.s.Stderr != nil {
		_, _ = io.WriteString(j.outs.s.Stderr, line)
	}
}

// hungWatch notices a local node that stays stopped (state T, e.g. SIGSTOP)
// for the peer timeout, wherever the job is: while the master waits for the
// slaves to join or the relay links are built, a hung node is otherwise
// noticed only after the handshake timeout (three peer timeouts).
type hungWatch map[*proc]time.Time // node → when it was first seen stopped

// check returns a node seen stopped at every poll for at least timeout.
func (h hungWatch) check(now time.Time, procs []*proc, timeout time.Duration) *proc {
	for _, p := range procs {
		if p.host != "" || ended(p) || !stopped(p) {
			delete(h, p)
			continue
		}
		since, ok := h[p]
		if !ok {
			h[p] = now
		} else if now.Sub(since) >= timeout {
			return p
		}
	}
	return nil
}

func hungError(p *proc, timeout time.Duration) error {
	msg := fmt.Sprintf("%s is stopped and does not answer (hung for %v, the peer timeout)", nodeName(p), timeout)
	if p.rank != 0 {
		msg += "; the job was stopped"
	}
	return &ExitError{Code: 1, Msg: msg}
}

// blame picks the node whose failure stopped the job, unless the master's
// program ended by itself, from the evidence in this order: a node that is still there but stopped (hung, state T); a node
// killed by a signal (nobody else sends signals to nodes before the job is
// being stopped); the node the master's report names, else a slave's
// report; the one node still running when every other has ended; otherwise
// the first to end.
func (j *supervisor) blame(failures []*proc) error {
	if m := j.procs[0]; j.maxLost != 0 && ended(m) && j.status.masterEnded(0) {
		// The master's program ended by itself (os.Exit, a panic, main
		// returning) after the job ended well on its side: its status is
		// the job's, as under go run, whatever became of slaves it did
		// not need (a slave killed in the region the program exits in).
		// With --max-lost 0 any loss is the job's failure.
		for _, p := range failures {
			if p != m {
				j.noteLost(p, "the master's program had ended by itself")
			}
		}
		if _, _, bad := status(m); bad {
			return failed(m, failures, "")
		}
		return nil
	}
	for _, p := range j.procs {
		if !ended(p) && stopped(p) {
			msg := fmt.Sprintf("%s is stopped and does not answer (hung)", nodeName(p))
			if p.rank != 0 {
				msg += "; the job was stopped"
			}
			return &ExitError{Code: 1, Msg: msg}
		}
	}
	for _, p := range failures {
		if desc, _, _ := status(p); strings.HasPrefix(desc, "was killed") {
			return failed(p, failures, "")
		}
	}
	wait := 20 * time.Millisecond
	var running []*proc
	for _, p := range j.procs {
		if !ended(p) {
			running = append(running, p)
		}
	}
	if len(running) == 0 {
		wait = 200 * time.Millisecond // every writer is gone: wait for the end of the pipe
	}
	if r, ok := pickReport(j.status.reports(wait), len(j.procs)); ok {
		var how string
		if r.Blame != r.Rank {
			who := "the master"
			if r.Rank != 0 {
				who = fmt.Sprintf("node %d", r.Rank)
			}
			how = fmt.Sprintf("seen by %s: %s", who, r.Reason)
		}
		for _, p := range j.procs {
			if p.rank == r.Blame {
				return failed(p, failures, how)
			}
		}
	}
	if len(running) == 1 && len(j.procs) > 1 {
		return failed(running[0], failures, "still running when every other node had ended")
	}
	// Every node ran the same sequential code: where the master ended as
	// the first to end did (a usage error, a panic, os.Exit in a package
	// the translator does not see), the program ended so, not a slave.
	if m := j.procs[0]; failures[0] != m && slices.Contains(failures, m) {
		d0, c0, _ := status(failures[0])
		if dm, cm, _ := status(m); dm == d0 && cm == c0 {
			return failed(m, failures, "")
		}
	}
	return failed(failures[0], failures, "")
}

// pickReport chooses the report to believe: the master's, which sees every
// slave, else the first slave's; only reports naming a node of the job.
func pickReport(reps []nodeenv.Report, size int) (nodeenv.Report, bool) {
	var first *nodeenv.Report
	for i, r := range reps {
		if r.Rank >= size || r.Blame >= size {
			continue
		}
		if r.Rank == 0 {
			return r, true
		}
		if first == nil {
			first = &reps[i]
		}
	}
	if first == nil {
		return nodeenv.Report{}, false
	}
	return *first, true
}

// failed is the job's error blaming p: how p ended if it ended by itself
// (it is among failures), and the evidence, how, if not empty.
func failed(p *proc, failures []*proc, how string) error {
	desc, code := "failed", 1
	for _, f := range failures {
		if f == p {
			desc, code, _ = status(p)
		}
	}
	msg := nodeName(p) + " " + desc
	if how != "" {
		msg += " (" + how + ")"
	}
	if p.rank != 0 {
		msg += "; the job was stopped"
	}
	return &ExitError{Code: max(code, 1), Msg: msg}
}

func (j *supervisor) terminating() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stopping
}

// terminate sends SIGTERM to every running node's process group and SIGKILL
// after the grace period.
func (j *supervisor) terminate() {
	j.once.Do(func() {
		j.mu.Lock()
		j.stopping = true
		j.mu.Unlock()
		for _, p := range j.procs {
			if p.stop != nil {
				p.stop()
			}
			signalGroup(p, syscall.SIGTERM)
			resumeGroup(p)
		}
		go func() {
			time.Sleep(j.grace)
			j.killAll()
		}()
	})
}

func (j *supervisor) killAll() {
	for _, p := range j.procs {
		if !ended(p) {
			signalGroup(p, syscall.SIGKILL)
		}
	}
}
