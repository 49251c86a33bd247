package cape

// Notices of refused connections, rate-limited. Anyone who can reach the
// master's port can open connections that fail their handshake (no token,
// garbage, silence); each is worth telling the user about, but a flood of
// them must not fill the job's log. So the first few of each interval are
// printed as they come, and the rest are counted and summarised once at
// the interval's end ("1,204 more connections refused in the last 10 s"),
// and once more when the job ends.

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits of the refused-connection notices.
const (
	refusedBurst    = 5                // notices printed in full per interval
	refusedInterval = 10 * time.Second // the interval a summary covers
)

// refusals rate-limits the notices of refused connections. It is safe for
// concurrent use (the transport's accepting goroutines report to it).
type refusals struct {
	print    func(line string) // writes one line (without its newline)
	burst    int
	interval time.Duration
	// after schedules f in d; tests replace it to drive the clock.
	after func(d time.Duration, f func()) (stop func() bool)

	mu sync.Mutex
	// mu protects the following fields.
	printed int    // notices printed in full in this interval
	held    int    // notices counted, not printed, in this interval
	last    string // the last notice held
	total   int    // every refused connection, over the job's life
	// stop stops the running interval's timer; nil when no interval runs
	// (the next notice opens one).
	stop func() bool
}

// newRefusals returns a limiter that prints through print.
func newRefusals(print func(string)) *refusals {
	return &refusals{print: print, burst: refusedBurst, interval: refusedInterval,
		after: func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }}
}

// note reports one refused connection: msg says which and why.
func (r *refusals) note(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if r.stop == nil {
		r.printed, r.held = 0, 0
		r.stop = r.after(r.interval, r.tick)
	}
	if r.printed < r.burst {
		r.printed++
		r.print(msg)
		return
	}
	r.held++
	r.last = msg
}

// tick ends an interval: it summarises the notices held in it.
func (r *refusals) tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.summariseLocked()
	r.stop = nil
}

// flush summarises the notices held so far, at the job's end.
func (r *refusals) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop != nil {
		r.stop()
	}
	r.summariseLocked()
	r.stop = nil
}

func (r *refusals) summariseLocked() {
	if r.held == 0 {
		return
	}
	noun := "connections"
	if r.held == 1 {
		noun = "connection"
	}
	r.print(fmt.Sprintf("%s more %s refused in the last %v (%s in all; the last: %s)",
		thousands(r.held), noun, r.interval, thousands(r.total), r.last))
	r.held, r.last = 0, ""
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// isRefusal reports whether a transport notice is about one refused
// connection (Master.Admit's and the Router's), which the node rate-limits.
func isRefusal(msg string) bool {
	return strings.HasPrefix(msg, "refused ")
}
