package wake

import (
	"runtime"
	"testing"
	"time"
)

// wakers are the backends under test: the platform's (the eventfd on
// Linux) and the channel.
func wakers(t *testing.T) map[string]func() *Waker {
	t.Helper()
	ws := map[string]func() *Waker{"channel": newChan}
	if runtime.GOOS == "linux" {
		ws["eventfd"] = func() *Waker {
			w := New()
			if w.ev == nil {
				t.Fatal("New made no eventfd on Linux")
			}
			return w
		}
	}
	return ws
}

// returnsWithin reports whether wait returns within d.
func returnsWithin(d time.Duration, wait func()) bool {
	done := make(chan struct{})
	go func() {
		wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// TestSignals checks a waker's contract on each backend, step by step: a
// pending signal ends the next wait, signals merge, Clear drops one, a
// deadline ends a wait with none, a deadline left armed from an earlier
// wait does not end a later wait without one, and an earlier deadline
// replaces a later one still armed. A step that does not wake is its
// case's last.
func TestSignals(t *testing.T) {
	const short, long = 20 * time.Millisecond, 5 * time.Second
	type step struct {
		op     string        // signal, clear, wait (no deadline), due (a deadline in d)
		d      time.Duration // due: the deadline
		wakes  bool          // wait, due: returns before the check's limit
		within time.Duration // the check's limit
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"a pending signal ends the wait", []step{{op: "signal"}, {op: "wait", wakes: true, within: long}}},
		{"signals merge", []step{{op: "signal"}, {op: "signal"}, {op: "signal"}, {op: "wait", wakes: true, within: long},
			{op: "due", d: short, wakes: true, within: long}, {op: "wait", wakes: false, within: 100 * time.Millisecond}}},
		{"clear drops the signal", []step{{op: "signal"}, {op: "clear"}, {op: "wait", wakes: false, within: 100 * time.Millisecond}}},
		{"a deadline ends the wait", []step{{op: "due", d: short, wakes: true, within: long}}},
		{"a past deadline", []step{{op: "due", d: -time.Second, wakes: true, within: long}}},
		{"an expired deadline does not end the next wait", []step{{op: "due", d: short, wakes: true, within: long},
			{op: "wait", wakes: false, within: 100 * time.Millisecond}}},
		{"an earlier deadline replaces a later one", []step{{op: "signal"}, {op: "due", d: long, wakes: true, within: time.Second},
			{op: "due", d: short, wakes: true, within: time.Second}}},
	} {
		for name, mk := range wakers(t) {
			w := mk()
			for i, s := range c.steps {
				switch s.op {
				case "signal":
					w.Signal()
				case "clear":
					w.Clear()
				case "wait", "due":
					var due time.Time
					if s.op == "due" {
						due = time.Now().Add(s.d)
					}
					if got := returnsWithin(s.within, func() { w.Wait(due) }); got != s.wakes {
						t.Fatalf("%s, %s: step %d (%s %v): returned within %v: %v, want %v", c.name, name, i, s.op, s.d, s.within, got, s.wakes)
					}
					if !s.wakes {
						// The wait goes on in its goroutine: end it. It is
						// the case's last step (one waiter at a time).
						w.Signal()
					}
				}
			}
		}
	}
}

// TestSignalFromAnotherGoroutine checks that a waiter blocked with no
// deadline is woken by a signal sent while it waits.
func TestSignalFromAnotherGoroutine(t *testing.T) {
	for name, mk := range wakers(t) {
		w := mk()
		for round := range 50 {
			go func() {
				time.Sleep(time.Millisecond)
				w.Signal()
			}()
			if !returnsWithin(5*time.Second, func() { w.Wait(time.Time{}) }) {
				t.Fatalf("%s: round %d: the waiter was not woken", name, round)
			}
		}
	}
}
