package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/launch"
)

// TestInjectedFaults runs a three-node job in which one node fails on
// purpose (CAPE_FAULT) at each point of a region, and checks that the job
// ends within a bounded time, non-zero, with an error naming the failed node
// and no node process left behind. It logs the table of outcomes.
func TestInjectedFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	cases := []struct {
		name, fault string
		blame       string // who the error or a node's message must name
		final       string // how cape run's own last line must begin: the failed node, not a victim
	}{
		{"slave crashes before the region", "node=2,at=init,do=crash", "node 2", "node 2 ("},
		{"slave crashes mid-region", "node=2,at=create,do=crash", "node 2", "node 2 ("},
		{"slave crashes after a region", "node=1,at=exchange,do=crash,region=1", "node 1", "node 1 ("},
		{"slave hangs before sending", "node=1,at=send,do=stall", "node 1", "node 1 ("},
		{"slave drops its connection", "node=2,at=start,do=drop,region=2", "node 2", "node 2 ("},
		{"master crashes mid-region", "node=0,at=create,do=crash", "master", "master ("},
		{"master hangs mid-region", "node=0,at=create,do=stall", "node 0", "master ("},
		{"master drops its connections", "node=0,at=send,do=drop", "node 0", "master ("},
		// The victims end first in these (reported: "node 2 exited with
		// status 1" for a fault of node 1's; the master blamed for node 2's).
		{"slave drops its connection at send", "node=1,at=send,do=drop", "node 1", "node 1 ("},
		{"slave drops its connection at the first start", "node=2,at=start,do=drop", "node 2", "node 2 ("},
		{"slave exits before sending", "node=1,at=send,do=exit", "node 1", "node 1 ("},
		{"slave exits after the exchange", "node=2,at=exchange,do=exit,region=1", "node 2", "node 2 ("},
		{"master exits mid-region", "node=0,at=create,do=exit", "master", "master ("},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n| case | outcome | time to end |\n| --- | --- | --- |\n")
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Setenv("CAPE_FAULT", c.fault)
			stderr, took, err := runFailingJob(t, c.fault, 30*time.Second, sharedBuild(t, "./testdata/tworegions"))
			if err == nil {
				t.FailNow()
			}
			all := err.Error() + "\n" + stderr
			if !strings.Contains(all, c.blame) {
				t.Errorf("%s: nothing names %q:\n%s", c.fault, c.blame, all)
			}
			// cape run's last line is "cape: " and the ExitError's message.
			var ee *launch.ExitError
			if !errors.As(err, &ee) || !strings.HasPrefix(ee.Msg, c.final) {
				t.Errorf("%s: cape run ended with %q, want it to name %q", c.fault, err, strings.TrimSuffix(c.final, " ("))
			}
			fmt.Fprintf(&table, "| %s (`%s`) | %s | %.1fs |\n", c.name, c.fault, err, took.Seconds())
		})
	}
	t.Log(table.String())
}

// runFailingJob runs a three-node job of prog (with args) under the
// CAPE_FAULT of the caller's t.Setenv, with a 2 s peer timeout and
// --max-lost 0 (the first loss stops the job: see survive_test.go for the
// default, surviving, policy), and checks
// what every injected fault must give: the job ends within limit, with a
// non-zero exit, and no node process it started (each prints "pid N") is
// left. It returns the job's stderr, how long it took and cape run's error.
func runFailingJob(t *testing.T, fault string, limit time.Duration, prog string, args ...string) (stderrText string, took time.Duration, err error) {
	t.Helper()
	var stdout, stderr lockedBuffer
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		done <- run(append([]string{"run", "-n", "3", "--timeout", "2s", "--max-lost", "0", prog, "--"}, args...), &stdout, &stderr)
	}()
	select {
	case err = <-done:
	case <-time.After(limit):
		t.Fatalf("%s: cape run still running after %v; stderr:\n%s", fault, limit, stderr.String())
	}
	took = time.Since(start)
	var ee *launch.ExitError
	if !errors.As(err, &ee) || ee.Code == 0 {
		t.Errorf("%s: cape run returned %v, want a non-zero exit; stderr:\n%s", fault, err, stderr.String())
	}
	if checkNodesGone(t, fault, stderr.String()) == 0 {
		t.Errorf("%s: no node reported its pid:\n%s", fault, stderr.String())
	}
	return stderr.String(), took, err
}

// nodePIDRE matches the "pid N" line that each node of the test programs
// prints, prefixed with its rank on a slave.
var nodePIDRE = regexp.MustCompile(`(?m)^(?:\[node \d+\] )?pid (\d+)$`)

// checkNodesGone fails the test for each node process that reported its
// pid in stderr and is still there, once cape run has returned, and
// returns how many reported one.
func checkNodesGone(t *testing.T, fault, stderr string) int {
	t.Helper()
	pids := nodePIDRE.FindAllStringSubmatch(stderr, -1)
	for _, m := range pids {
		pid, _ := strconv.Atoi(m[1])
		// The launcher has waited for every node: a pid still there is a
		// node left behind (or, rarely, a new process that reused it).
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s: node process %d is still there after cape run returned", fault, pid)
		}
	}
	return len(pids)
}
