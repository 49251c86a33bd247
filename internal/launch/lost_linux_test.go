//go:build linux

package launch

import (
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// TestWatchStopsLostSlave: when the master writes a lost notice for a
// slave to the status pipe, the watch kills that slave's process group at
// once (a straggler asleep for a minute, with a child of its own), reports
// it as a loss the job goes on without, and returns when the master ends.
func TestWatchStopsLostSlave(t *testing.T) {
	st, err := newStatusPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	j := &supervisor{grace: 30 * time.Second, timeout: 10 * time.Second, maxLost: -1,
		hungKilled: map[*proc]bool{}, lostKilled: map[*proc]bool{},
		outs: newOutputs(Spec{Stderr: &stderr}), status: st}
	p0 := startProc(t, 0, "sleep 0.5; exit 0")
	p1 := startProc(t, 1, "sleep 60 & sleep 60")
	p2 := startProc(t, 2, "sleep 0.3; exit 0")
	j.procs = []*proc{p0, p1, p2}
	if _, err := st.w.WriteString(nodeenv.Lost{Rank: 1, Reason: "declared lost in region #1"}.String()); err != nil {
		t.Fatal(err)
	}
	st.closeWriter()
	start := time.Now()
	if err := j.watch(t.Context()); err != nil {
		t.Fatalf("watch: %v\n%s", err, stderr.String())
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("watch returned after %v: it waited for the lost slave", took)
	}
	if !strings.Contains(stderr.String(), "was declared lost by the master and stopped") {
		t.Errorf("the lost slave's end is not reported: %q", stderr.String())
	}
}
