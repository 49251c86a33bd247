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
	}{
		{"slave crashes before the region", "node=2,at=init,do=crash", "node 2"},
		{"slave crashes mid-region", "node=2,at=create,do=crash", "node 2"},
		{"slave crashes after a region", "node=1,at=exchange,do=crash,region=1", "node 1"},
		{"slave hangs before sending", "node=1,at=send,do=stall", "node 1"},
		{"slave drops its connection", "node=2,at=start,do=drop,region=2", "node 2"},
		{"master crashes mid-region", "node=0,at=create,do=crash", "master"},
		{"master hangs mid-region", "node=0,at=create,do=stall", "node 0"},
		{"master drops its connections", "node=0,at=send,do=drop", "node 0"},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n| case | outcome | time to end |\n| --- | --- | --- |\n")
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Setenv("CAPE_FAULT", c.fault)
			var stdout, stderr lockedBuffer
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				done <- run([]string{"run", "-n", "3", "--timeout", "2s", "./testdata/tworegions"}, &stdout, &stderr)
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: cape run still running after 30s; stderr:\n%s", c.fault, stderr.String())
			}
			took := time.Since(start)
			var ee *launch.ExitError
			if !errors.As(err, &ee) || ee.Code == 0 {
				t.Fatalf("%s: cape run returned %v, want a non-zero exit; stderr:\n%s", c.fault, err, stderr.String())
			}
			all := err.Error() + "\n" + stderr.String()
			if !strings.Contains(all, c.blame) {
				t.Errorf("%s: nothing names %q:\n%s", c.fault, c.blame, all)
			}
			pids := regexp.MustCompile(`(?m)^(?:\[node \d+\] )?pid (\d+)$`).FindAllStringSubmatch(stderr.String(), -1)
			if len(pids) == 0 {
				t.Errorf("no node reported its pid:\n%s", stderr.String())
			}
			for _, m := range pids {
				pid, _ := strconv.Atoi(m[1])
				if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
					t.Errorf("node process %d is still there after cape run returned", pid)
				}
			}
			fmt.Fprintf(&table, "| %s (`%s`) | %s | %.1fs |\n", c.name, c.fault, err, took.Seconds())
		})
	}
	t.Log(table.String())
}
