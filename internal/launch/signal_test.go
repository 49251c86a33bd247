package launch

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestSignalContext: SIGTERM to the process cancels the context with the
// signal as its cause, and the job's error is the shell's status for it
// (143); a context cancelled otherwise gives 130.
func TestSignalContext(t *testing.T) {
	ctx, stop := SignalContext()
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	if e := interrupted(ctx); e.Code != 143 || e.Msg != `signal "terminated" received; stopping every node` {
		t.Errorf("after SIGTERM: status %d, %q", e.Code, e.Msg)
	}
	plain, cancel := context.WithCancel(context.Background())
	cancel()
	if e := interrupted(plain); e.Code != 130 {
		t.Errorf("a plain cancellation: status %d, want 130", e.Code)
	}
}
