package roster

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/scripttest"
)

// TestInteraction runs the scripts in testdata/*.txt (etcd's
// interaction_test style): each command feeds the roster or the job's
// membership one event, and the lines after "----" are the actions it
// queued (or the state it reports), in order. Every script starts with a
// comment naming the end-to-end tests of cmd/cape and cape whose cases it
// mirrors; they run here in milliseconds, without processes or sockets.
//
// A script is blocks of
//
//	command key=value ...
//	----
//	expected output, one line each (none: no line)
//	<blank line>
//
// Times are offsets from the job's start (at=10ms); see run for the
// commands. Run with -update to rewrite the expected output.
func TestInteraction(t *testing.T) {
	scripttest.Run(t, func() func(string) ([]string, error) {
		var h harness
		return h.run
	})
}

// harness is a job's membership and the master's roster, driven by a
// script.
type harness struct {
	members Members
	ro      *Roster
	joins   Joins
	catchup Catchup
	// heard: when each slave was last heard from (the heard command,
	// which makes the roster judge silence: Roster.Silence); now: the
	// time of the last event stepped.
	heard map[int]time.Time
	now   time.Time
}

// t0 is the job's start: times in scripts are offsets from it.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// parseAt returns the time at=, an offset from t0.
func parseAt(a scripttest.Args) (time.Time, error) {
	v, ok := a["at"]
	if !ok {
		return time.Time{}, errors.New("at= missing")
	}
	d, err := time.ParseDuration(v)
	return t0.Add(d), err
}

// run carries out one command and returns what it printed. Commands:
//
//	job nodes=N max-lost=K              a new job: N nodes, all live
//	begin seq=S count=C [chunk=K] [sched=static|dynamic|guided] [norerun] at=T
//	ask rank=R [seq=S] at=T             a chunk request (seq: the receiver's region)
//	delta rank=R [seq=S] at=T           a delta
//	bad rank=R [seq=S] at=T             a malformed message
//	closed rank=R [seq=S] at=T [err=E]  the connection failed
//	next at=T                           the master's loop asks for a unit
//	master at=T                         the master's loop runs units of 1ms
//	                                    from T until it is done or waits
//	slave rank=R at=T                   the slave runs the rest of the region:
//	                                    in a dynamic loop it asks for chunks
//	                                    of 1ms until an empty one; its delta
//	tick waited=D at=T                  the master's loop waited
//	end at=T                            the region's exchange completed
//	result                              the region's outcome (Settled, Result)
//	lose-after-commit rank=R seq=S at=T the result's broadcast to R failed
//	boundary [joined=R,...]             the next live set (Survivors, Admit), adopted
//	members                             the live set and the losses
//	ask-join rank=R replayed=K          a joining node asks to be admitted
//	admit seq=S [refuse=W] [fail=R,...] the boundary after region S with the
//	                                    nodes that asked: refused (W: no-log,
//	                                    stopped, suspended, lazy) or sent the
//	                                    live set (failing for the ranks fail)
//	should-ask seq=S replay-to=K at=T   a joining node at region S, the log
//	                                    up to region K: does it ask now?
func (h *harness) run(cmd string) ([]string, error) {
	name, a := scripttest.Fields(cmd)
	seq := h.seq()
	if s, ok := a["seq"]; ok {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, err
		}
		seq = v
	}
	rank, err := a.Int("rank", -1)
	if err != nil {
		return nil, err
	}
	if at, err := parseAt(a); err == nil {
		h.now = at
	}
	switch name {
	case "job":
		return nil, h.job(a)
	case "heard":
		at, err := parseAt(a)
		if err != nil {
			return nil, err
		}
		if h.heard == nil {
			h.heard = map[int]time.Time{}
			h.ro.Silence(func(r int) time.Duration { return h.now.Sub(h.heard[r]) })
		}
		h.heard[rank] = at
		return nil, nil
	case "begin":
		return h.begin(a, seq)
	case "ask", "delta", "bad":
		at, err := parseAt(a)
		if err != nil {
			return nil, err
		}
		ev := Event{Kind: Recv, Rank: rank, Seq: seq, MsgSeq: seq, At: at, MsgKind: 50, Delta: name == "delta"}
		if name == "delta" {
			ev.MsgKind = 51
		}
		if name == "bad" {
			ev.Err = fmt.Errorf("node %d sent a malformed message", rank)
		}
		return h.step(ev), nil
	case "closed":
		at, err := parseAt(a)
		if err != nil {
			return nil, err
		}
		e := a["err"]
		if e == "" {
			e = "EOF"
		}
		return h.step(Event{Kind: Closed, Rank: rank, Seq: seq, At: at, Err: fmt.Errorf("node %d: %s", rank, e)}), nil
	case "master":
		return h.master(a)
	case "slave":
		return h.slave(a, rank, seq)
	case "next", "end":
		at, err := parseAt(a)
		if err != nil {
			return nil, err
		}
		kind := NextUnit
		if name == "end" {
			kind = End
		}
		return h.step(Event{Kind: kind, At: at}), nil
	case "tick":
		at, err := parseAt(a)
		if err != nil {
			return nil, err
		}
		w, err := time.ParseDuration(a["waited"])
		if err != nil {
			return nil, err
		}
		return h.step(Event{Kind: Tick, At: at, Waited: w}), nil
	case "result":
		return h.result(), nil
	case "lose-after-commit":
		at, err := parseAt(a)
		if err != nil {
			return nil, err
		}
		survived, declared := h.members.LoseAfterCommit(rank, seq, at)
		return []string{fmt.Sprintf("survived=%v declared=%v", survived, declared)}, nil
	case "boundary":
		joined, err := a.Ints("joined")
		if err != nil {
			return nil, err
		}
		next, changed := h.members.Survivors()
		next = h.members.Admit(next, joined)
		changed = changed || len(joined) > 0
		h.members.Live = next
		return []string{fmt.Sprintf("live %v changed=%v", next, changed)}, nil
	case "members":
		return h.membership(), nil
	case "ask-join", "admit", "should-ask":
		return h.join(name, a, rank, seq)
	}
	return nil, fmt.Errorf("unknown command %q", name)
}

// job starts a new job: its membership, roster and joining nodes.
func (h *harness) job(a scripttest.Args) error {
	nodes, err := a.Int("nodes", 0)
	if err != nil {
		return err
	}
	maxLost, err := a.Int("max-lost", -1)
	if err != nil {
		return err
	}
	h.members = NewMembers(nodes, maxLost)
	h.ro = New(&h.members)
	h.joins, h.catchup, h.heard = Joins{}, Catchup{}, nil
	return nil
}

// logStates are the refuse= values of admit.
var logStates = map[string]LogState{
	"":          {Logging: true},
	"no-log":    {},
	"stopped":   {Logging: true, Refusal: "the job's checkpoint log stopped at region #7 (disk full): a joining node cannot catch up", Lazy: true},
	"suspended": {Logging: true, Refusal: "the job's checkpoint log is suspended at its bound until the next checkpoint point: try again later"},
	"lazy":      {Logging: true, Lazy: true},
}

// join carries out the commands of joining nodes, as the driver (cape's
// announceLive and admitJoiners) does.
func (h *harness) join(cmd string, a scripttest.Args, rank int, seq uint64) ([]string, error) {
	switch cmd {
	case "ask-join":
		replayed, err := a.Int("replayed", 0)
		if err != nil {
			return nil, err
		}
		h.joins.Ask(rank, uint64(replayed))
		return nil, nil
	case "should-ask":
		at, err := parseAt(a)
		if err != nil {
			return nil, err
		}
		to, err := a.Int("replay-to", 0)
		if err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("ask=%v", h.catchup.ShouldAsk(seq, uint64(to), at))}, nil
	}
	state, ok := logStates[a["refuse"]]
	if !ok {
		return nil, fmt.Errorf("refuse=%q", a["refuse"])
	}
	fail, err := a.Ints("fail")
	if err != nil {
		return nil, err
	}
	var out []string
	next, changed := h.members.Survivors()
	var admitted []int
	reqs := h.joins.Take()
	ans := AnswerRequests(reqs, next, state)
	live := ans.Live
	if ans.Refusal != "" {
		for _, r := range reqs {
			out = append(out, fmt.Sprintf("refuse %d: %s", r.Rank, ans.Refusal))
		}
		reqs = nil
	}
	for _, r := range reqs {
		if slices.Contains(fail, r.Rank) {
			out = append(out, fmt.Sprintf("send %d live %v: failed, dropped", r.Rank, live))
			continue
		}
		out = append(out, fmt.Sprintf("send %d live %v: admitted (replayed %d)", r.Rank, live, r.Replayed))
		admitted = append(admitted, r.Rank)
	}
	if len(admitted) > 0 {
		next, changed = h.members.Admit(next, admitted), true
	}
	h.members.Live = next
	return append(out, fmt.Sprintf("live %v changed=%v", next, changed)), nil
}

// master runs the master's loop from at: each unit takes 1ms, until the
// loop is done or waits for the slaves.
func (h *harness) master(a scripttest.Args) ([]string, error) {
	at, err := parseAt(a)
	if err != nil {
		return nil, err
	}
	var out []string
	for range 1000 {
		out = append(out, h.step(Event{Kind: NextUnit, At: at})...)
		if last := out[len(out)-1]; !strings.HasPrefix(last, "run ") {
			return out, nil
		}
		at = at.Add(time.Millisecond)
	}
	return nil, errors.New("the master's loop does not end")
}

// slave runs the rest of the region on slave rank from at: in a dynamic
// loop it asks for chunks, each taking 1ms, until it gets an empty one;
// then it sends its delta.
func (h *harness) slave(a scripttest.Args, rank int, seq uint64) ([]string, error) {
	at, err := parseAt(a)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; h.ro.Dynamic(); i++ {
		if i == 1000 {
			return nil, errors.New("the slave's loop does not end")
		}
		acts := h.step(Event{Kind: Recv, Rank: rank, Seq: seq, MsgSeq: seq, At: at, MsgKind: 50})
		out = append(out, acts...)
		if len(acts) != 1 || !strings.HasPrefix(acts[0], "chunk ") {
			return out, nil // not answered with a chunk: refused, or the region failed
		}
		if strings.HasSuffix(acts[0], fmt.Sprintf(" [%d,%d)", h.ro.count, h.ro.count)) {
			break
		}
		at = at.Add(time.Millisecond)
	}
	return append(out, h.step(Event{Kind: Recv, Rank: rank, Seq: seq, MsgSeq: seq, At: at, MsgKind: 51, Delta: true})...), nil
}

func (h *harness) seq() uint64 {
	if h.ro == nil {
		return 0
	}
	return h.ro.Seq()
}

func (h *harness) begin(a scripttest.Args, seq uint64) ([]string, error) {
	if h.ro == nil {
		return nil, errors.New("begin before job")
	}
	at, err := parseAt(a)
	if err != nil {
		return nil, err
	}
	count, err := a.Int("count", 0)
	if err != nil {
		return nil, err
	}
	chunk, err := a.Int("chunk", 0)
	if err != nil {
		return nil, err
	}
	sched := a["sched"]
	if sched != "" && sched != "static" && sched != "dynamic" && sched != "guided" {
		return nil, fmt.Errorf("sched %q", sched)
	}
	_, norerun := a["norerun"]
	h.ro.Step(Event{Kind: Begin, At: at, Region: Region{Seq: seq, Count: count, Chunk: chunk,
		Dynamic: sched == "dynamic" || sched == "guided", Guided: sched == "guided",
		Nodes: len(h.members.Live), Rerun: !norerun}})
	out := h.format(h.ro.Ready())
	// The assignment of static units, by rank.
	for _, rank := range h.members.Live {
		us := h.ro.mine
		if rank > 0 {
			us = h.ro.given[rank]
		}
		out = append(out, fmt.Sprintf("node %d: %s", rank, units(us)))
	}
	return out, nil
}

func (h *harness) step(ev Event) []string {
	if h.ro == nil {
		return []string{"no job"}
	}
	h.ro.Step(ev)
	return h.format(h.ro.Ready())
}

func (h *harness) result() []string {
	if !h.ro.Settled() {
		return []string{"not settled"}
	}
	committed, err := h.ro.Result()
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	lost, n, reexec, waited := h.ro.Stats()
	return []string{fmt.Sprintf("committed %v lost %v reexec %d units in %v, waited %v", committed, lost, n, reexec, waited)}
}

func (h *harness) membership() []string {
	var ls []string
	for _, l := range h.members.Losses {
		ls = append(ls, fmt.Sprintf("%d@#%d", l.Rank, l.Seq))
	}
	return []string{fmt.Sprintf("live %v losses [%s] may-lose=%v units=%d reexec=%v",
		h.members.Live, strings.Join(ls, " "), h.members.MayLose(), h.members.Units, h.members.Reexec)}
}

func units(us []Unit) string {
	s := make([]string, len(us))
	for i, u := range us {
		s[i] = fmt.Sprintf("[%d,%d)", u.Lo, u.Hi)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// format writes actions one a line, times as offsets from t0.
func (h *harness) format(acts []Action) []string {
	var out []string
	for _, a := range acts {
		var s string
		switch a.Kind {
		case Chunk:
			s = fmt.Sprintf("chunk %d [%d,%d)", a.Rank, a.Unit.Lo, a.Unit.Hi)
		case Commit:
			s = fmt.Sprintf("commit %d", a.Rank)
		case Run:
			s = fmt.Sprintf("run [%d,%d)", a.Unit.Lo, a.Unit.Hi)
			if a.Redo {
				s += " redo"
			}
		case Wait:
			s = fmt.Sprintf("wait until %v", a.At.Sub(t0))
		case Done:
			s = "done"
		case Declare:
			s = fmt.Sprintf("declare %d #%d", a.Rank, a.Seq)
			if a.Straggler {
				s += " straggler"
			}
		case Lost:
			where := "master"
			if a.Dynamic {
				where = "pool"
			}
			s = fmt.Sprintf("lost %d at %v: %v; units %s to the %s", a.Rank, a.At.Sub(t0), a.Err, units(a.Units), where)
		case Leave:
			s = fmt.Sprintf("leave %d #%d", a.Rank, a.Seq)
		case Refuse:
			s = fmt.Sprintf("refuse %d kind %d #%d", a.Rank, a.MsgKind, a.MsgSeq)
		case Drop:
			s = fmt.Sprintf("drop %d", a.Rank)
		case Wake:
			s = "wake"
		case Recovered:
			s = fmt.Sprintf("recovered #%d from %v in %v: re-ran %d units in %v", a.Seq, a.Ranks, a.Took, a.Count, a.Reexec)
		default:
			s = fmt.Sprintf("action %d", a.Kind)
		}
		out = append(out, s)
	}
	return out
}
