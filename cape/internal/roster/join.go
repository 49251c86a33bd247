package roster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Joining nodes (seed 003's dynamic provisioning). A node that joins a
// running job replays the job's log, asks to be admitted once it has
// caught up (Catchup), and the master admits the nodes that asked at its
// next region boundary (Joins, Admission) unless its log cannot bring a
// joining node up to that boundary (JoinRefusal). The driver carries the
// messages: the request, the live set sent to each admitted node, the
// refusal.

// Request is a joining node's request to be admitted: its rank, and the
// regions it had replayed from the log when it asked.
type Request struct {
	Rank     int
	Replayed uint64
}

// Joins is the master's account of the nodes that asked to be admitted
// and wait for the next region boundary, and of those admitted at the last
// boundary and not yet included in the transport. It is safe for
// concurrent use: the requests arrive on the joining nodes' receivers, the
// boundary is on the program's goroutine.
type Joins struct {
	mu sync.Mutex
	// mu protects the following fields.
	asked   map[int]uint64 // rank → regions replayed
	include []int          // admitted, to include at the next region
}

// Ask records rank's request, made once it had replayed replayed regions.
func (j *Joins) Ask(rank int, replayed uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.asked == nil {
		j.asked = map[int]uint64{}
	}
	j.asked[rank] = replayed
}

// Waiting reports whether a node asked and was not answered yet.
func (j *Joins) Waiting() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.asked) > 0
}

// Take returns the requests not answered yet, ascending by rank, and
// forgets them: each is answered once (admitted, refused, or dropped at the
// end of the job).
func (j *Joins) Take() []Request {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.asked) == 0 {
		return nil
	}
	reqs := make([]Request, 0, len(j.asked))
	for _, rank := range slices.Sorted(maps.Keys(j.asked)) {
		reqs = append(reqs, Request{Rank: rank, Replayed: j.asked[rank]})
	}
	clear(j.asked)
	return reqs
}

// Admitted records the ranks admitted at a boundary, to include in the
// transport's broadcasts and gathers when their first region begins.
func (j *Joins) Admitted(ranks []int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.include = append(j.include, ranks...)
}

// Include returns the ranks admitted since the last call, in the order
// they were admitted, and forgets them. The slice is valid until the next
// Admitted.
func (j *Joins) Include() []int {
	j.mu.Lock()
	defer j.mu.Unlock()
	inc := j.include
	j.include = j.include[:0]
	return inc
}

// LogState is what the master's checkpoint log can give a joining node,
// for JoinRefusal.
type LogState struct {
	Logging bool   // the job keeps a checkpoint log
	Refusal string // why the log cannot bring a joining node up to now (it stopped, it is suspended), or ""
	Lazy    bool   // the job uses the lazy transfer, whose pages a joining node cannot have
}

// JoinRefusal says why no node can be admitted at a boundary of a job
// whose log is in state s, or "" when the nodes that asked are admitted.
func JoinRefusal(s LogState) string {
	switch {
	case !s.Logging:
		return "the job keeps no checkpoint log"
	case s.Refusal != "":
		return s.Refusal
	case s.Lazy:
		return "the job uses the lazy transfer (start it with --transfer eager to admit joining nodes)"
	}
	return ""
}

// AdmittedLive is the live set sent to each node admitted at a boundary:
// next, the survivors, with every node that asked. A node whose send fails
// is left out of the live set the others adopt (Admit), not of this one.
func AdmittedLive(next []int, reqs []Request) []int {
	live := slices.Clone(next)
	for _, r := range reqs {
		live = append(live, r.Rank)
	}
	slices.Sort(live)
	return live
}

// Answer is the master's answer, at a region boundary, to the nodes that
// asked to be admitted: every request refused (Refusal), or every node
// admitted and sent Live.
type Answer struct {
	Refusal string // why they are refused; "" when they are admitted
	Live    []int  // admitted: the live set each is sent (AdmittedLive)
}

// AnswerRequests answers reqs, the requests taken at a boundary (Take),
// whose survivors are next, with the log in state s.
func AnswerRequests(reqs []Request, next []int, s LogState) Answer {
	if why := JoinRefusal(s); why != "" {
		return Answer{Refusal: why}
	}
	return Answer{Live: AdmittedLive(next, reqs)}
}

// CheckAdmission validates the master's answer to this joining node of
// rank rank, at region seq: the live set live from region at+1 on. It
// must name the node and begin no earlier than the node's region.
func CheckAdmission(live []int, rank int, at, seq uint64) error {
	if !slices.Contains(live, rank) {
		return errors.New("the live set does not name this node")
	}
	if at+1 < seq {
		return fmt.Errorf("admitted from region #%d, this node is at region #%d", at+1, seq)
	}
	return nil
}

// A joining node asks to be admitted once it has replayed every record
// the log holds but AskAhead, or once the records ahead of it stop
// shrinking fast: they must halve every AskPeriod (a program whose time
// goes mostly to sequential code, which the node re-runs as fast as the
// job does, never catches up). The master then admits it at its next
// region boundary; the node replays the regions it is still behind before
// its first share, while the master waits for it once.
const (
	AskAhead  = 2
	AskPeriod = 500 * time.Millisecond
)

// Catchup is a joining node's record of its progress through the log, for
// ShouldAsk. The zero value is ready; it is not safe for concurrent use.
type Catchup struct {
	mark      time.Time // the last look
	markAhead uint64    // records ahead of the node then
}

// ShouldAsk reports whether the node, at region seq with the log holding
// regions up to replayTo, should ask to be admitted now.
func (c *Catchup) ShouldAsk(seq, replayTo uint64, now time.Time) bool {
	ahead := replayTo - min(replayTo, seq-1)
	if ahead <= AskAhead {
		return true
	}
	if c.mark.IsZero() {
		c.mark, c.markAhead = now, ahead
		return false
	}
	if now.Sub(c.mark) < AskPeriod {
		return false
	}
	if 2*ahead > c.markAhead {
		return true
	}
	c.mark, c.markAhead = now, ahead
	return false
}
