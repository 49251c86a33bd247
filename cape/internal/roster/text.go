package roster

import (
	"fmt"
	"strings"
	"time"
)

// The texts of the master's notices about its nodes. The driver writes
// each through the runtime's one reporter, prefixed with "cape: master: "
// and ended with a newline; here they are plain strings, so that a script
// can check them and nothing in this package prints.

// LostText is the notice of a Lost action, region naming the region (its
// label).
func (a Action) LostText(region string) string {
	where := "the master re-runs them"
	if a.Dynamic {
		where = "they go back to the pool, for the first survivor to ask (the master included)"
	}
	return fmt.Sprintf("lost node %d at %s, %v into %s: %v; its %s: %s",
		a.Rank, a.At.Format("15:04:05.000"), Short(a.Into), region, a.Err, describeUnits(a.Units), where)
}

// RecoveredText is the notice of a Recovered action: region names the
// region, live is the live set of the next regions.
func (a Action) RecoveredText(region string, live []int) string {
	return fmt.Sprintf("%s recovered from the loss of node %s in %v: the master re-ran %s in %v; next regions are shared by nodes %v",
		region, JoinInts(a.Ranks), Short(a.Took), Plural(a.Count, "unit"), Short(a.Reexec), live)
}

// RefuseText is the notice of a Refuse action.
func (a Action) RefuseText() string {
	return fmt.Sprintf("refused node %d's late message (kind %d, region #%d): it was declared lost",
		a.Rank, a.MsgKind, a.MsgSeq)
}

// LeaveText is what a Leave action tells the straggler, region naming the
// region it straggled in.
func (a Action) LeaveText(region string) string {
	return fmt.Sprintf("node %d straggled in %s; its units ran elsewhere", a.Rank, region)
}

// AfterCommitText is the notice of rank declared lost at at while the
// master sent it the result of region (LoseAfterCommit), err the send's
// error.
func AfterCommitText(rank int, at time.Time, region string, err error) string {
	return fmt.Sprintf("lost node %d at %s while sending it the result of %s: %v; it takes no share of the next regions",
		rank, at.Format("15:04:05.000"), region, err)
}

// Summary is the master's final notice about the nodes the job of size
// nodes lost, or "" when it lost none; inside names the region in which
// the program ended (os.Exit in an iteration), or is "" when it ran to its
// end.
func (m *Members) Summary(size int, inside string) string {
	if len(m.Losses) == 0 {
		return ""
	}
	who := make([]string, len(m.Losses))
	for i, l := range m.Losses {
		who[i] = fmt.Sprintf("node %d in region #%d", l.Rank, l.Seq)
	}
	if inside != "" {
		return fmt.Sprintf("the job lost %d of %d nodes (%s) before the program ended inside %s; %s re-executed on the master in %v",
			len(m.Losses), size, strings.Join(who, ", "), inside, Plural(m.Units, "unit"), Short(m.Reexec))
	}
	return fmt.Sprintf("the job completed after losing %d of %d nodes (%s); %s re-executed on the master in %v",
		len(m.Losses), size, strings.Join(who, ", "), Plural(m.Units, "unit"), Short(m.Reexec))
}

// StatsNote is the master's --stats note on the region's loop: the units
// it re-executed, if any, and how much of its compute was waiting for the
// slaves to commit (with re-execution on, its loop ends then).
func (ro *Roster) StatsNote() string {
	var waited string
	if ro.waitedT > 0 {
		waited = fmt.Sprintf("; of the compute, %v waiting for the slaves' deltas", ro.waitedT.Round(time.Microsecond))
	}
	if len(ro.lostHere) == 0 {
		return waited
	}
	return fmt.Sprintf(", lost node %s: re-executed %s on the master in %v", JoinInts(ro.lostHere),
		Plural(ro.reexecN, "unit"), ro.reexecT.Round(time.Microsecond)) + waited
}

// describeUnits lists units briefly: the first four, then a count.
func describeUnits(us []Unit) string {
	if len(us) == 0 {
		return "units: none (it had not asked for a chunk)"
	}
	var parts []string
	iters := 0
	for i, u := range us {
		iters += u.Hi - u.Lo
		if i < 4 {
			parts = append(parts, fmt.Sprintf("[%d, %d)", u.Lo, u.Hi))
		}
	}
	if len(us) > 4 {
		parts = append(parts, fmt.Sprintf("and %d more", len(us)-4))
	}
	return fmt.Sprintf("%s (%d iterations: %s)", Plural(len(us), "unit"), iters, strings.Join(parts, " "))
}

// JoinInts writes ranks as "1, 2, 3".
func JoinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// Plural is "1 unit", "2 units".
func Plural(k int, what string) string {
	if k == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", k, what)
}

// Short rounds a duration for a notice: to the microsecond below a
// millisecond, else to the millisecond.
func Short(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

// The texts of the master's notices about joining nodes (cape/join.go).

// GaveUpText is the notice of joining node rank whose request to be
// admitted never came (err says why).
func GaveUpText(rank int, err error) string {
	return fmt.Sprintf("joining node %d gave up before it was admitted: %v", rank, err)
}

// RefusedText is the notice of joining node rank refused, why the reason.
func RefusedText(rank int, why string) string {
	return fmt.Sprintf("refused joining node %d: %s", rank, why)
}

// LostAdmittedText is the notice of joining node rank lost as it was sent
// its live set (err the send's error).
func LostAdmittedText(rank int, err error) string {
	return fmt.Sprintf("joining node %d lost as it was admitted: %v", rank, err)
}

// JoinedText is the notice of the node that made request r admitted at at,
// after region seq.
func (r Request) JoinedText(at time.Time, seq uint64) string {
	return fmt.Sprintf("node %d joined at %s after region #%d (it asked once it had replayed %d regions from the log); it takes a share of the next regions",
		r.Rank, at.Format("15:04:05.000"), seq, r.Replayed)
}
