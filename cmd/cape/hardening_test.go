package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/launch"
)

// TestFaultLeavesNoPartialOutput runs a program that writes its result file
// after its last region, with a node failing at several points. What CAPE
// guarantees: the master gets past a region's Exchange only after a complete
// exchange, so a failure before or during any region stops the master before
// it writes anything; the file is then absent. A failure after the last
// region may come after the master wrote, and the file must then be
// complete (the test accepts absent or complete there).
func TestFaultLeavesNoPartialOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	cases := []struct {
		name, fault string
		mayWrite    bool
	}{
		{"slave crashes in the last region", "node=2,at=create,do=crash,region=2", false},
		{"slave exits before sending its last delta", "node=1,at=send,do=exit,region=2", false},
		{"slave hangs in the last region", "node=1,at=create,do=stall,region=2", false},
		{"master crashes in the last region", "node=0,at=create,do=crash,region=2", false},
		{"slave drops its connection in the first region", "node=2,at=start,do=drop,region=1", false},
		{"slave crashes after the last region", "node=1,at=exchange,do=crash,region=2", true},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n| case | outcome | output file | time to end |\n| --- | --- | --- | --- |\n")
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Setenv("CAPE_FAULT", c.fault)
			out := filepath.Join(t.TempDir(), "result.txt")
			_, took, err := runFailingJob(t, c.fault, 40*time.Second, sharedBuild(t, "./testdata/writeout"), "-o", out)
			state := "absent"
			b, rerr := os.ReadFile(out)
			switch {
			case rerr == nil && bytes.HasSuffix(b, []byte("\nend\n")) && bytes.Count(b, []byte("\n")) == 1<<16+1:
				state = "complete"
				if !c.mayWrite {
					t.Errorf("%s: the master wrote its output although the job failed in a region", c.fault)
				}
			case rerr == nil:
				state = fmt.Sprintf("PARTIAL (%d bytes)", len(b))
				t.Errorf("%s: partly written output file of %d bytes", c.fault, len(b))
			case !os.IsNotExist(rerr):
				t.Fatal(rerr)
			}
			fmt.Fprintf(&table, "| %s (`%s`) | %v | %s | %.1fs |\n", c.name, c.fault, err, state, took.Seconds())
		})
	}
	t.Log(table.String())
}

// TestRunTooManyNodesFailsFast asks for more nodes than the launcher can
// hold descriptors for: cape run must refuse at once, before building or
// starting anything, naming the limit and the knob.
func TestRunTooManyNodesFailsFast(t *testing.T) {
	var stdout, stderr bytes.Buffer
	start := time.Now()
	err := run([]string{"run", "-n", "10000000", "./testdata/tworegions"}, &stdout, &stderr)
	took := time.Since(start)
	t.Logf("\n| case | outcome | time to detect |\n| --- | --- | --- |\n| cape run -n 10000000 | %v | %v |", err, took.Round(time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "file descriptors") || !strings.Contains(err.Error(), "ulimit -n") {
		t.Fatalf("cape run -n 10000000: %v, want an error naming the descriptor limit", err)
	}
	if took > 2*time.Second {
		t.Errorf("took %v to refuse", took)
	}
}

// TestRunTooManyLocalNodes asks for more nodes on this machine than its
// cores can start: refused at once, naming the limit and --hostfile.
func TestRunTooManyLocalNodes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	n := launch.MinLocalNodes + launch.LocalNodesPerCore*runtime.NumCPU() + 1
	start := time.Now()
	err := run([]string{"run", "-n", strconv.Itoa(n), "./testdata/tworegions"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "can start on one machine") || !strings.Contains(err.Error(), "--hostfile") {
		t.Fatalf("cape run -n %d: %v, want an error naming the limit of one machine", n, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v to refuse", took)
	}
}
