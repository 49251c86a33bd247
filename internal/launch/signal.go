package launch

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Signaled is the cause of a job's context that SignalContext cancelled:
// the signal cape run received.
type Signaled struct{ Sig os.Signal }

func (s *Signaled) Error() string { return fmt.Sprintf("%v received", s.Sig) }

// SignalContext returns a context cancelled, with a *Signaled cause, when
// the process receives SIGINT or SIGTERM, and the function that stops
// watching for them.
func SignalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(&Signaled{Sig: s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// interrupted is the job's error when ctx was cancelled: the shell's
// status for the signal received (128 + its number: 130 for SIGINT, 143 for
// SIGTERM), else 130.
func interrupted(ctx context.Context) *ExitError {
	code, msg := 130, "interrupted; stopping every node"
	if s, ok := context.Cause(ctx).(*Signaled); ok {
		if n, ok := s.Sig.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		msg = fmt.Sprintf("signal %q received; stopping every node", s.Sig.String())
	}
	return &ExitError{Code: code, Msg: msg}
}

// Interrupted is the error of a command whose context SignalContext
// cancelled while it was doing what (such as "the build"): the shell's
// status for the signal, and a line saying what it stopped.
func Interrupted(ctx context.Context, what string) *ExitError {
	e := interrupted(ctx)
	e.Msg = fmt.Sprintf("interrupted during %s", what)
	if s, ok := context.Cause(ctx).(*Signaled); ok {
		e.Msg = fmt.Sprintf("signal %q received during %s; stopped", s.Sig.String(), what)
	}
	return e
}
