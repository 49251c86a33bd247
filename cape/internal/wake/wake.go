// Package wake owns the roster's wake-up signal: goroutines that change
// what a waiter waits for (the master's receivers: a delta committed, a
// node lost, a chunk asked for) signal it, and one waiter (the region's
// goroutine) waits for a signal or a deadline. It knows nothing of what is
// waited for: a waiter checks and waits again.
//
// In a nutshell, it works as follows. Like a channel of capacity 1, signals
// while one is pending are merged. On Linux it is an eventfd in the
// runtime's network poller: the receiver that signals it parks next
// (waiting for its slave's next message), and its own thread then finds
// the waiting goroutine ready in the poller and runs it. A channel would
// wake an idle thread to run the waiter (a futex wake-up and a thread
// hand-off per region), and that thread would then only take over the
// poller. Elsewhere, or if the eventfd cannot be made, it is a channel.
//
// A Waker lives as long as the process (the roster's is the node's): it
// has no Close.
package wake

import "time"

// Waker is a wake-up signal. Signal and Clear are safe for concurrent
// use; one goroutine at a time may Wait.
type Waker struct {
	ev *eventfd // nil: ch

	ch      chan struct{} // cap 1
	timer   *time.Timer   // for a wait with a deadline; left armed between waits
	timerAt time.Time     // when timer fires; zero once it fired
}

// New returns a waker with no signal pending.
func New() *Waker {
	if ev := newEventfd(); ev != nil {
		return &Waker{ev: ev}
	}
	return newChan()
}

// newChan returns the channel waker, the one made where there is no
// eventfd.
func newChan() *Waker { return &Waker{ch: make(chan struct{}, 1)} }

// Signal wakes the waiter, or the next Wait if none waits.
func (w *Waker) Signal() {
	if w.ev != nil {
		w.ev.signal()
		return
	}
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// Clear drops a pending signal.
func (w *Waker) Clear() {
	if w.ev != nil {
		w.ev.clear()
		return
	}
	select {
	case <-w.ch:
	default:
	}
}

// Wait waits for a signal, or until due if due is not zero; it may return
// early (a caller checks what it waits for and waits again). Deadlines are
// kept from one wait to the next when they come no later than due (the
// wait then ends early): setting one modifies a runtime timer, which wakes
// an idle thread.
func (w *Waker) Wait(due time.Time) {
	if w.ev != nil {
		w.ev.wait(due)
		return
	}
	if due.IsZero() {
		<-w.ch
		return
	}
	now := time.Now()
	switch {
	case w.timer == nil:
		w.timer = time.NewTimer(due.Sub(now))
		w.timerAt = due
	case w.timerAt.IsZero() || w.timerAt.After(due) || w.timerAt.Before(now):
		w.timer.Reset(due.Sub(now))
		w.timerAt = due
	}
	select {
	case <-w.ch:
	case <-w.timer.C:
		w.timerAt = time.Time{}
	}
}
