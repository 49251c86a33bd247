package refusal

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The limits the runtime uses.
const (
	Burst    = 5                // notices printed in full per interval
	Interval = 10 * time.Second // the interval a summary covers
)

// Is reports whether a transport notice is about one refused connection
// (Master.Admit's and the Router's), which the runtime rate-limits.
func Is(msg string) bool {
	return strings.HasPrefix(msg, "refused ")
}

// Window decides which notices of refused connections are printed. The
// zero value with Burst and Interval set is ready. It is not safe for
// concurrent use.
type Window struct {
	Burst    int           // notices printed in full per interval
	Interval time.Duration // the interval a summary covers (only named in it)

	open    bool   // an interval runs
	printed int    // notices printed in full in this interval
	held    int    // notices counted, not printed, in this interval
	last    string // the last notice held
	total   int    // every refused connection, over the job's life
}

// Note takes one notice, msg, and returns the line to print now, if any
// (print is false when it is held for the summary), and whether it opened
// an interval, whose end the caller reports with End.
func (w *Window) Note(msg string) (line string, print, opened bool) {
	w.total++
	if !w.open {
		w.open, opened = true, true
		w.printed, w.held = 0, 0
	}
	if w.printed < w.Burst {
		w.printed++
		return msg, true, opened
	}
	w.held++
	w.last = msg
	return "", false, opened
}

// End closes the running interval and returns its summary, or "" when no
// notice was held in it.
func (w *Window) End() string {
	w.open = false
	if w.held == 0 {
		return ""
	}
	noun := "connections"
	if w.held == 1 {
		noun = "connection"
	}
	s := fmt.Sprintf("%s more %s refused in the last %v (%s in all; the last: %s)",
		Thousands(w.held), noun, w.Interval, Thousands(w.total), w.last)
	w.held, w.last = 0, ""
	return s
}

// Total is the number of refused connections noted so far.
func (w *Window) Total() int { return w.total }

// Thousands writes n with commas between groups of three digits.
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
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

// Clock runs f once, d from now, on a goroutine of its own; stop cancels
// it and reports whether it did (as time.Timer.Stop).
type Clock func(d time.Duration, f func()) (stop func() bool)

// WallClock is the Clock of the running job: time.AfterFunc.
func WallClock(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Limiter rate-limits the notices of refused connections: a Window driven
// by a Clock. It is safe for concurrent use (the transport's accepting
// goroutines report to it).
type Limiter struct {
	print func(line string) // writes one line (without its newline)
	clock Clock

	mu sync.Mutex
	// mu protects the following fields.
	w Window
	// stop stops the running interval's timer; nil when no interval runs.
	stop func() bool
}

// New returns a limiter with the runtime's limits (Burst, Interval) that
// prints through print and times its intervals on clock.
func New(print func(string), clock Clock) *Limiter {
	return &Limiter{print: print, clock: clock, w: Window{Burst: Burst, Interval: Interval}}
}

// Note reports one refused connection: msg says which and why.
func (l *Limiter) Note(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	line, print, opened := l.w.Note(msg)
	if opened {
		l.stop = l.clock(l.w.Interval, l.tick)
	}
	if print {
		l.print(line)
	}
}

// tick ends an interval: it summarises the notices held in it.
func (l *Limiter) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked()
}

// Flush summarises the notices held so far, at the job's end.
func (l *Limiter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop != nil {
		l.stop()
	}
	l.endLocked()
}

func (l *Limiter) endLocked() {
	if s := l.w.End(); s != "" {
		l.print(s)
	}
	l.stop = nil
}
