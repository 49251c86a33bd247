package cape

import "time"

// waker is the roster's wake-up signal: the slaves' receivers signal it
// (a delta committed, a loss, a chunk request), the region goroutine waits
// for it. Like a channel of capacity 1, signals while one is pending are
// merged. On Linux it is an eventfd in the runtime's network poller: the
// receiver that signals it parks next (waiting for its slave's next
// message), and its own thread then finds the region goroutine ready in the
// poller and runs it. A channel would wake an idle thread to run the
// region goroutine (a futex wake-up and a thread hand-off per region), and
// that thread would then only take over the poller. Elsewhere, or if the
// eventfd cannot be made, it is a channel.
type waker struct {
	ev *evfd // nil: ch

	ch      chan struct{} // cap 1
	timer   *time.Timer   // for a wait with a deadline; left armed between waits
	timerAt time.Time     // when timer fires; zero once it fired
}

func newWaker() *waker {
	if ev := newEvfd(); ev != nil {
		return &waker{ev: ev}
	}
	return &waker{ch: make(chan struct{}, 1)}
}

// signal wakes the waiter, or the next wait if none waits.
func (w *waker) signal() {
	if w.ev != nil {
		w.ev.signal()
		return
	}
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// clear drops a pending signal.
func (w *waker) clear() {
	if w.ev != nil {
		w.ev.clear()
		return
	}
	select {
	case <-w.ch:
	default:
	}
}

// wait waits for a signal, or until due if due is not zero; it may
// return early (a caller checks what it waits for and waits again).
// Deadlines are kept from one wait to the next when they come no later
// than due (the wait then ends early): setting one modifies a runtime
// timer, which wakes an idle thread.
func (w *waker) wait(due time.Time) {
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
