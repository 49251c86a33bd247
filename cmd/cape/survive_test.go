package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/launch"
	"github.com/cape-go/cape/internal/testenv"
)

// survive's regions, in order: 1 static, 2 static with a chunk, 3 dynamic,
// 4 guided, 5 sections.
var surviveRegions = []string{"static", "static-chunk", "dynamic", "guided", "sections"}

// surviveArgs make each region of testdata/survive take tens of
// milliseconds, so that a fault at=compute (10ms after the start) lands in
// the middle of it.
var surviveArgs = []string{"-n", "2000", "-rounds", "3000"}

// buildSurvive builds testdata/survive once and returns the program and
// its fault-free output (go run's, which a 3-node cape run must match).
func buildSurvive(t *testing.T) (bin, want string) {
	t.Helper()
	bin, cleanup, err := buildProgram(context.Background(), "./testdata/survive", "survive", io.Discard)
	if err != nil {
		t.Fatalf("build testdata/survive: %v", err)
	}
	t.Cleanup(cleanup)
	return bin, goRun(t, "./testdata/survive", surviveArgs...)
}

// runSurvivor runs bin on nodes nodes under fault (CAPE_FAULT) with extra
// flags, and checks what every run must give: it ends within limit and no
// node process it started (each prints "pid N") is left. It returns the
// job's stdout and stderr and cape run's error.
func runSurvivor(t *testing.T, bin, fault string, nodes int, flags ...string) (stdout, stderr string, err error) {
	return runSurvivorArgs(t, bin, fault, nodes, flags, surviveArgs)
}

// runSurvivorArgs is runSurvivor with the program's arguments.
func runSurvivorArgs(t *testing.T, bin, fault string, nodes int, flags, progArgs []string) (stdout, stderr string, err error) {
	t.Helper()
	t.Setenv("CAPE_FAULT", fault)
	var out, errs lockedBuffer
	args := append([]string{"run", "-n", strconv.Itoa(nodes), "--timeout", "4s"}, flags...)
	args = append(append(args, bin, "--"), progArgs...)
	done := make(chan error, 1)
	go func() { done <- run(args, &out, &errs) }()
	const limit = 60 * time.Second
	select {
	case err = <-done:
	case <-time.After(limit):
		t.Fatalf("%s: cape run still running after %v; stderr:\n%s", fault, limit, errs.String())
	}
	checkNodesGone(t, fault, errs.String())
	return out.String(), errs.String(), err
}

// lossNamed reports whether stderr reports the loss of node rank: the
// master's report, or the launcher's.
func lossNamed(stderr string, rank int) bool {
	return strings.Contains(stderr, fmt.Sprintf("cape: master: lost node %d ", rank)) ||
		regexp.MustCompile(fmt.Sprintf(`(?m)^cape: node %d \(pid \d+\) .*; (the job goes on without it|the master had completed the job)`, rank)).MatchString(stderr)
}

// TestSurviveLostSlaves kills, stops or disconnects one slave, then two, at
// every point of a region, in each kind of region of testdata/survive (with
// reductions and lastprivate values), and requires the fault-free output,
// exit status 0, the loss reported naming the node, and no process left.
// The default run has the cases of surviveQuick (every kind of region,
// every point, every way to fail, once each); CAPE_TEST_FULL=1 runs all.
func TestSurviveLostSlaves(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	testSurvive(t)
}

// surviveCase is a case of TestSurviveLostSlaves: the faults (CAPE_FAULT),
// the nodes, and the ranks whose loss must be reported.
type surviveCase struct {
	name, fault string
	nodes       int
	lost        []int
}

// surviveCases are TestSurviveLostSlaves's cases.
func surviveCases() []surviveCase {
	type tc = surviveCase
	var cases []tc
	// One slave killed at every point of every kind of region.
	for i, kind := range surviveRegions {
		region := i + 1
		rank := 1 + i%2
		for _, at := range []string{"start", "compute", "create", "send", "broadcast", "exchange"} {
			if region == len(surviveRegions) && (at == "broadcast" || at == "exchange") {
				continue // after the last commit: nothing left to re-run (see the next case)
			}
			// The last region's fault must land before the node commits:
			// after that nothing of the job is left to lose.
			after := "2ms"
			if region == len(surviveRegions) {
				after = "0s"
			}
			cases = append(cases, tc{fmt.Sprintf("kill/%s/%s", kind, at),
				fmt.Sprintf("node=%d,at=%s,do=crash,region=%d,after=%s", rank, at, region, after), 3, []int{rank}})
		}
	}
	cases = append(cases,
		tc{"kill/init", "node=2,at=init,do=crash", 3, []int{2}},
		tc{"kill/last-exchange", "node=1,at=exchange,do=crash,region=5", 3, []int{1}},
		tc{"exit/dynamic/compute", "node=2,at=compute,do=exit,region=3", 3, []int{2}},
		tc{"disconnect/static/compute", "node=1,at=compute,do=drop,region=1", 3, []int{1}},
		tc{"disconnect/dynamic/send", "node=2,at=send,do=drop,region=3", 3, []int{2}},
		tc{"disconnect/sections/start", "node=1,at=start,do=drop,region=5", 3, []int{1}},
		tc{"disconnect/static-chunk/broadcast", "node=2,at=broadcast,do=drop,region=2", 3, []int{2}},
		tc{"disconnect/guided/create", "node=1,at=create,do=drop,region=4", 3, []int{1}},
		tc{"disconnect/between-regions", "node=2,at=exchange,do=drop,region=1", 3, []int{2}},
		// A stopped node is declared a straggler (or times out).
		tc{"stop/static/send", "node=2,at=send,do=stall,region=1", 3, []int{2}},
		tc{"stop/static-chunk/create", "node=1,at=create,do=stall,region=2", 3, []int{1}},
		tc{"stop/dynamic/start", "node=1,at=start,do=stall,region=3", 3, []int{1}},
		tc{"stop/guided/compute", "node=2,at=compute,do=stall,region=4", 3, []int{2}},
		tc{"stop/sections/compute", "node=1,at=compute,do=stall,region=5,after=0s", 3, []int{1}},
		tc{"stop/during-broadcast", "node=2,at=broadcast,do=stall,region=3", 3, []int{2}},
		tc{"stop/between-regions", "node=1,at=exchange,do=stall,region=2", 3, []int{1}},
		// Two slaves of four.
		tc{"two/kill+kill same region", "node=1,at=create,do=crash,region=1;node=3,at=compute,do=crash,region=1", 4, []int{1, 3}},
		tc{"two/kill+disconnect", "node=2,at=compute,do=crash,region=2;node=3,at=send,do=drop,region=3", 4, []int{2, 3}},
		tc{"two/stop+kill", "node=1,at=compute,do=stall,region=3;node=2,at=start,do=crash,region=4", 4, []int{1, 2}},
		tc{"two/broadcast+sections", "node=3,at=broadcast,do=crash,region=2;node=1,at=compute,do=crash,region=5,after=0s", 4, []int{3, 1}},
		tc{"two/init+guided", "node=2,at=init,do=crash;node=1,at=compute,do=crash,region=4", 4, []int{2, 1}},
	)
	return cases
}

// testSurvive runs surviveCases with flags (the quick ones, or all under
// CAPE_TEST_FULL=1) and checks each: the fault-free output, exit status 0,
// the losses named.
func testSurvive(t *testing.T, flags ...string) {
	bin, want := buildSurvive(t)
	cases := surviveCases()
	names := map[string]bool{}
	for _, c := range cases {
		names[c.name] = true
	}
	for name := range surviveQuick {
		if !names[name] {
			t.Errorf("surviveQuick names %q, which is no case", name)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !surviveQuick[c.name] {
				testenv.Full(t)
			}
			stdout, stderr, err := runSurvivor(t, bin, c.fault, c.nodes, flags...)
			if err != nil {
				t.Fatalf("%s: cape run: %v\n%s", c.fault, err, stderr)
			}
			if stdout != want {
				t.Errorf("%s: printed\n%s\nwant\n%s\nstderr:\n%s", c.fault, stdout, want, stderr)
			}
			for _, rank := range c.lost {
				if !lossNamed(stderr, rank) {
					t.Errorf("%s: the loss of node %d is not reported:\n%s", c.fault, rank, stderr)
				}
			}
		})
	}
}

// surviveQuick are the cases of TestSurviveLostSlaves a plain go test runs:
// each kind of region and each point of a region once, a loss before the
// first region and at the last exchange, an exit, disconnects in and
// between regions, a stop, and two losses of each mix.
var surviveQuick = map[string]bool{
	"kill/static/compute": true, "kill/static-chunk/exchange": true, "kill/dynamic/start": true,
	"kill/dynamic/send": true, "kill/guided/broadcast": true, "kill/sections/create": true,
	"kill/init": true, "kill/last-exchange": true, "exit/dynamic/compute": true,
	"disconnect/dynamic/send": true, "disconnect/between-regions": true, "stop/guided/compute": true,
	"two/kill+disconnect": true, "two/stop+kill": true,
}

// TestMaxLost checks the cap: with --max-lost 0 a lost slave stops the job
// as before (non-zero, naming the node), and with --max-lost 1 the second
// loss does.
func TestMaxLost(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	testMaxLost(t)
}

// testMaxLost is TestMaxLost with flags.
func testMaxLost(t *testing.T, flags ...string) {
	bin, want := buildSurvive(t)
	with := func(f ...string) []string { return append(slices.Clone(flags), f...) }
	_, stderr, err := runSurvivor(t, bin, "node=2,at=create,do=crash,region=1", 3, with("--max-lost", "0")...)
	var ee *launch.ExitError
	if !errors.As(err, &ee) || ee.Code == 0 || !strings.HasPrefix(ee.Msg, "node 2 (") {
		t.Errorf("--max-lost 0: cape run returned %v, want a failure naming node 2\n%s", err, stderr)
	}
	if strings.Contains(stderr, "goes on without it") || strings.Contains(stderr, "master had completed") || strings.Contains(stderr, "master: lost node") {
		t.Errorf("--max-lost 0: a loss was survived:\n%s", stderr)
	}
	stdout, stderr, err := runSurvivor(t, bin, "node=2,at=create,do=crash,region=1", 3, with("--max-lost", "1")...)
	if err != nil || stdout != want {
		t.Errorf("--max-lost 1, one loss: %v, printed\n%s\nwant\n%s\n%s", err, stdout, want, stderr)
	}
	_, stderr, err = runSurvivor(t, bin, "node=2,at=create,do=crash,region=1;node=1,at=create,do=crash,region=3", 3, with("--max-lost", "1")...)
	// Either lost node may be named: with lazy transfer a node's end can be
	// seen late (its pager helper holds its output open).
	if !errors.As(err, &ee) || ee.Code == 0 || !strings.Contains(ee.Msg, "node 1") && !strings.Contains(ee.Msg, "node 2") {
		t.Errorf("--max-lost 1, two losses: cape run returned %v, want a failure naming a lost node\n%s", err, stderr)
	}
}

// TestStraggler stops one slave (SIGSTOP) past the straggler threshold but
// within the peer timeout, then resumes it (SIGCONT) once the master has
// declared it lost: the job completes with the right output, the master
// runs the straggler's units, refuses its late delta and tells it to leave.
func TestStraggler(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	testStraggler(t)
}

// testStraggler is TestStraggler with flags.
func testStraggler(t *testing.T, flags ...string) {
	bin, _ := buildSurvive(t)
	// Node 2 stops in region 2 (in region 1 the relay links may still be
	// being built, which a stopped node holds up for the peer timeout).
	// Regions 3 to 5 take about a second: the job is still running when
	// node 2 comes back.
	args := []string{"-n", "2000", "-rounds", "30000"}
	want := goRun(t, "./testdata/survive", args...)
	t.Setenv("CAPE_FAULT", "node=2,at=compute,do=stall,region=2")
	pr, pw := io.Pipe()
	var stdout, stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		runArgs := append(append([]string{"run", "-n", "3", "--timeout", "20s"}, flags...), bin, "--")
		done <- run(append(runArgs, args...), &stdout, io.MultiWriter(pw, &stderr))
		pw.Close()
	}()
	pidRE := regexp.MustCompile(`^\[node 2\] pid (\d+)$`)
	pid, resumed := 0, false
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		if m := pidRE.FindStringSubmatch(line); m != nil {
			pid, _ = strconv.Atoi(m[1])
		}
		if strings.Contains(line, "cape: master: lost node 2 ") && strings.Contains(line, "a straggler") && pid > 0 && !resumed {
			resumed = true
			// ESRCH: the launcher already stopped the lost node.
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil && !errors.Is(err, syscall.ESRCH) {
				t.Errorf("SIGCONT node 2: %v", err)
			}
		}
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("cape run still running after 60s:\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("cape run: %v\n%s", err, stderr.String())
	}
	if !resumed {
		t.Fatalf("node 2 was never declared a straggler:\n%s", stderr.String())
	}
	if stdout.String() != want {
		t.Errorf("printed\n%s\nwant\n%s\nstderr:\n%s", stdout.String(), want, stderr.String())
	}
	if !strings.Contains(stderr.String(), "the master re-runs them") {
		t.Errorf("the straggler's units did not run on the master:\n%s", stderr.String())
	}
	// The launcher stops a node the master declared lost; if the node
	// woke first, its late message was refused or it was told to leave.
	if !strings.Contains(stderr.String(), "refused node 2's late message") && !strings.Contains(stderr.String(), "[node 2] cape: node 2: the master") &&
		!strings.Contains(stderr.String(), "node 2 (pid "+strconv.Itoa(pid)+") was declared lost by the master and stopped") {
		t.Errorf("the straggler's late message was neither refused nor did it leave:\n%s", stderr.String())
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("node 2 (pid %d) is still there", pid)
	}
}

// TestSurviveLazy runs TestSurviveLostSlaves's cases, the cap's and the
// straggler's under lazy transfer, where the master holds every page (the
// default transfer is distributed homes, which the other tests run).
func TestSurviveLazy(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Run("losses", func(t *testing.T) { testSurvive(t, "--transfer", "lazy") })
	t.Run("cap", func(t *testing.T) { testMaxLost(t, "--transfer", "lazy") })
	t.Run("straggler", func(t *testing.T) { testStraggler(t, "--transfer", "lazy") })
}

// TestSurviveBuddies runs TestSurviveLostSlaves's cases and the
// straggler's with CAPE_REPLICAS=buddy: each slave copies what it writes
// to another node, as on a cluster, although every node runs on this host
// (where by default a lost node's own helper serves its pages).
func TestSurviveBuddies(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Setenv("CAPE_REPLICAS", "buddy")
	t.Run("losses", func(t *testing.T) { testSurvive(t) })
	t.Run("straggler", func(t *testing.T) { testStraggler(t) })
}
