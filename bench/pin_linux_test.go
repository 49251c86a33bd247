package bench

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
	"golang.org/x/sys/unix"
)

// ProcessRTTAcross runs the echo in another process on another CPU, and
// gives this goroutine's thread its CPU affinity back.
func TestProcessRTTAcross(t *testing.T) {
	ctx, echo := echoCommand(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := affinity(t)
	r, err := ProcessRTTAcross(ctx, echo, 50)
	if errors.Is(err, ErrNoCPUPair) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if r.Fastest <= 0 || r.Fastest > r.Median || r.Median > r.Slowest {
		t.Errorf("round trips %+v: want 0 < fastest ≤ median ≤ slowest", r)
	}
	if after := affinity(t); after != before {
		t.Errorf("CPU affinity after the measurement %s, before %s", after, before)
	}
	if _, err := ProcessRTTAcross(ctx, []string{"/bin/true"}, 5); err == nil {
		t.Error("ProcessRTTAcross with /bin/true as the echo: no error")
	}
}

// affinity is the calling thread's CPU set, printed.
func affinity(t *testing.T) string {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(set)
}
