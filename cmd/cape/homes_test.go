//go:build linux

package main

import (
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// homesMasterRE matches the master's --stats line of a region: the bytes it
// received; homesSlaveRE a slave's: the pages its region wrote.
var (
	homesMasterRE = regexp.MustCompile(`cape: master: region \S+ #(\d+): .*received (\d+) bytes\)`)
	homesSlaveRE  = regexp.MustCompile(`\[node \d+\] cape: node \d+: region \S+ #\d+: .*create \S+ \((\d+) pages, \d+ bytes\)`)
)

// TestHomesTransfer runs programs whose regions read what other nodes
// wrote, in sequential code and in the next regions, under --transfer
// homes on 2 and 3 nodes: the output must be go run's. Blocks end inside
// pages (rows of 2 KiB and vectors split at any element), so some pages
// have several writers, which the master merges. The master must receive
// notices and those pages only: for the Jacobi sweep, at most a quarter of
// the bytes the slaves changed (it received all of them before).
func TestHomesTransfer(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	needLazyPages(t)
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{"./testdata/lazy", nil},
		{"../../examples/jacobi", []string{"-n", "256", "-iters", "20"}},
		// Pushed halo rows land on pages the tracker compares (n=1024).
		{"../../examples/jacobi", []string{"-n", "1024", "-iters", "12"}},
		{"../../examples/cg", nil},
		{"../../examples/rows", nil},
		{"../../examples/sections", nil},
		// Allocates every step: nodes collect garbage while they fetch
		// each other's pages (a page server in the node's own process
		// waited for ever then).
		{"./testdata/steps", nil},
	} {
		want := goRun(t, c.dir, c.args...)
		for _, nodes := range []string{"2", "3"} {
			stdout, stderr, err := capeRun(nodes, []string{"--transfer", "homes", "--stats"}, sharedBuild(t, c.dir), c.args)
			if err != nil {
				t.Fatalf("%s -n %s: %v\n%s", c.dir, nodes, err, stderr)
			}
			if stdout != want {
				t.Errorf("%s -n %s --transfer homes printed %q, go run %q", c.dir, nodes, stdout, want)
			}
			if strings.Contains(stderr, "unavailable") {
				t.Fatalf("%s -n %s: distributed homes were not used:\n%s", c.dir, nodes, stderr)
			}
			if !strings.Contains(c.dir, "jacobi") {
				continue
			}
			received, changed := 0, 0
			for _, m := range homesMasterRE.FindAllStringSubmatch(stderr, -1) {
				k, _ := strconv.Atoi(m[2])
				received += k
			}
			for _, m := range homesSlaveRE.FindAllStringSubmatch(stderr, -1) {
				k, _ := strconv.Atoi(m[1])
				changed += k * 4096 // the sweep changes every byte of the pages it writes
			}
			if changed == 0 || received > changed/4 {
				t.Errorf("%s -n %s: the master received %d bytes of the slaves' %d changed: want at most a quarter\n%s", c.dir, nodes, received, changed, stderr)
			}
		}
	}
}

// TestHomesParallelReleases runs jobs whose master writes its releases
// concurrently (CAPE_FANOUT=parallel, the default from 8 slaves on a
// master with 4 cores) and one slave after another (serial): the same
// output either way, on 4 nodes, the pushed pages included.
func TestHomesParallelReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{"./testdata/lazy", nil},
		{"../../examples/jacobi", []string{"-n", "256", "-iters", "20"}},
		{"../../examples/cg", nil},
	} {
		want := goRun(t, c.dir, c.args...)
		for _, fanout := range []string{"parallel", "serial"} {
			t.Setenv("CAPE_FANOUT", fanout)
			stdout, stderr, err := capeRun("4", []string{"--transfer", "homes"}, sharedBuild(t, c.dir), c.args)
			if err != nil || stdout != want {
				t.Errorf("%s, CAPE_FANOUT=%s, 4 nodes: %v, printed %q, want %q\n%s", c.dir, fanout, err, stdout, want, stderr)
			}
		}
	}
	t.Setenv("CAPE_FANOUT", "sideways")
	if _, stderr, err := capeRun("2", nil, sharedBuild(t, "./testdata/lazy"), nil); err == nil || !strings.Contains(stderr, "CAPE_FANOUT") {
		t.Errorf("CAPE_FANOUT=sideways: %v, want an error naming the variable\n%s", err, stderr)
	}
}

// TestHomesConflict checks that a conflict is still an error naming both
// nodes and the element under distributed homes (the page's writers send
// their runs when the master asks).
func TestHomesConflict(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	needLazyPages(t)
	stdout, stderr, err := capeRun("2", []string{"--transfer", "homes"}, sharedBuild(t, "./testdata/conflict"), nil)
	if err == nil {
		t.Fatalf("a conflicting region succeeded; printed %q", stdout)
	}
	if !strings.Contains(stderr, "nodes 0 and 1 wrote different values to element [0]") {
		t.Errorf("no conflict naming both nodes:\n%s", stderr)
	}
}

// TestHomesLossRecovers checks a loss under distributed homes: the
// master re-runs the lost node's units, reading the pages only that node
// held from their replica, takes them over, and the job prints the
// sequential output. On one host the replica is the lost node's own,
// which its helper serves on after the node is gone (self replicas, the
// default); with CAPE_REPLICAS=buddy it is its buddy's (here the
// master's). With --max-lost 0 nothing is replicated and the loss stops
// the job, naming the node.
func TestHomesLossRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	bin := sharedBuild(t, "./testdata/lazy")
	want := goRun(t, "./testdata/lazy")
	t.Setenv("CAPE_FAULT", "node=1,at=send,do=exit,region=3")
	for _, c := range []struct{ replicas, kept string }{
		{"", "kept by its own helper"},
		{"buddy", "copied to node 0"},
	} {
		t.Setenv("CAPE_REPLICAS", c.replicas)
		stdout, stderr, err := capeRun("2", []string{"--transfer", "homes", "--stats"}, bin, nil)
		if err != nil || stdout != want {
			t.Fatalf("replicas %q: cape run: %v, printed %q, want %q\n%s", c.replicas, err, stdout, want, stderr)
		}
		if !regexp.MustCompile(`took over the \d+ pages lost node\(s\) \[1\] held`).MatchString(stderr) {
			t.Errorf("replicas %q: the master did not say it took over node 1's pages:\n%s", c.replicas, stderr)
		}
		if !strings.Contains(stderr, "pages "+c.kept+" in") {
			t.Errorf("replicas %q: node 1's --stats do not say its pages were %s:\n%s", c.replicas, c.kept, stderr)
		}
		// The lost node's helper served on, and must not outlive the job.
		// cape run reads the node's stderr, which the orphan inherits, to
		// its end; this catches an orphan that lets go of it and stays.
		if pids := processesOf(bin, 2*time.Second); len(pids) > 0 {
			t.Errorf("replicas %q: processes of the program still run after the job: %v", c.replicas, pids)
		}
	}
	stdout, stderr, err := capeRun("2", []string{"--transfer", "homes", "--max-lost", "0"}, bin, nil)
	if err == nil || stdout != "" || !strings.Contains(stderr, "node 1") {
		t.Errorf("--max-lost 0: %v, printed %q; want a failure naming node 1\n%s", err, stdout, stderr)
	}
}

// TestHomesLossAfterLoop checks a slave lost after main's last loop of
// regions, where the slaves leave (cape.RegionsDone) and the master's
// output reads the whole grid: the pages only the lost node held come from
// its replica (its own helper, or with CAPE_REPLICAS=buddy its buddy's),
// and the job prints the sequential output with status 0. The slaves print
// nothing after the loop (--slave-output): they left there.
func TestHomesLossAfterLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	bin := sharedBuild(t, "../../examples/jacobi")
	// Regions: the grids' fill (#1), then one sweep an iteration (#2-#4).
	args := []string{"-n", "256", "-iters", "3"}
	want := goRun(t, "../../examples/jacobi", args...)
	t.Setenv("CAPE_FAULT", "node=1,at=exchange,do=crash,region=4")
	for _, replicas := range []string{"", "buddy"} {
		t.Setenv("CAPE_REPLICAS", replicas)
		stdout, stderr, err := capeRun("3", nil, bin, args)
		if err != nil || stdout != want {
			t.Fatalf("replicas %q: cape run: %v, printed %q, want %q\n%s", replicas, err, stdout, want, stderr)
		}
	}
	t.Setenv("CAPE_FAULT", "")
	stdout, stderr, err := capeRun("3", []string{"--slave-output"}, bin, args)
	if err != nil || stdout != want {
		t.Fatalf("--slave-output: %v, printed %q, want %q\n%s", err, stdout, want, stderr)
	}
}

// TestHomesPeakRSS bounds each node's peak resident set under distributed
// homes on the active Jacobi sweep, n=2048 on 4 nodes: two grids of 32
// MiB, which each node fills where it sweeps them (a parallel loop: first
// touch) and the master reads whole for its output after the loop. A
// node's twins follow what its regions may write and what it holds
// (monitor.Lazy's TwinWritesOnly, the twins of invalidated pages
// released), and the slaves leave after the loop (cape.RegionsDone) instead
// of fetching the grid for the output only the master prints. So a
// slave's peak, its twin file and snapshot included (VmHWM of the node's
// process, its pager helper apart), stays under the grids plus 16 MiB
// (about 75 MiB measured; 100 when the slaves ran the output too, 109 with
// the grids filled by sequential code). The master's too (about 60 MiB;
// 85 when it kept its twins and snapshot after the loop): once no region
// can run, every node drops its twins and the master, once the slaves'
// programs have ended, the snapshot it served its pages from, so the
// grid its output reads is not held beside two copies of its share.
func TestHomesPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	const n = 2048
	bin := sharedBuild(t, "../../examples/jacobi")
	// -iters 9: no other test runs the program so, which tells its nodes.
	args := []string{"-n", strconv.Itoa(n), "-iters", "9"}
	want := goRun(t, "../../examples/jacobi", args...)
	stop := make(chan struct{})
	peaks := make(chan map[int]int, 1)
	go func() { peaks <- pollPeakRSS(strings.Join(append([]string{bin}, args...), "\x00")+"\x00", stop) }()
	stdout, stderr, err := capeRun("4", []string{"--transfer", "homes"}, bin, args)
	close(stop)
	got := <-peaks
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if stdout != want {
		t.Fatalf("printed %q, go run %q", stdout, want)
	}
	grids := 2 * n * n * 8
	limit := grids + 16<<20
	// The nodes are the processes that filled their quarter of the grids;
	// a node's child shows its command line too, between its fork (small,
	// before the grids) and its exec.
	maps.DeleteFunc(got, func(_, kb int) bool { return kb<<10 < grids/4 })
	if len(got) != 4 {
		t.Fatalf("saw %d node processes, want 4: %v", len(got), got)
	}
	for pid, kb := range got {
		t.Logf("node process %d: peak RSS %.1f MiB (limit %.1f)", pid, float64(kb)/1024, float64(limit)/(1<<20))
		if kb<<10 > limit {
			t.Errorf("node process %d: peak RSS %.1f MiB, want at most %.1f MiB (grids %d MiB): a node holds more than its share of the grids and what its program reads", pid, float64(kb)/1024, float64(limit)/(1<<20), grids>>20)
		}
	}
}

// pollPeakRSS reads, every few milliseconds until stop is closed, the peak
// RSS (VmHWM, KiB) of every process whose command line is cmdline (NUL
// separated, as /proc shows it), and returns the last one read by pid.
func pollPeakRSS(cmdline string, stop <-chan struct{}) map[int]int {
	peaks := map[int]int{}
	for {
		select {
		case <-stop:
			return peaks
		case <-time.After(5 * time.Millisecond):
		}
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err != nil || string(b) != cmdline {
				continue
			}
			if kb, ok := vmHWM(pid); ok {
				peaks[pid] = max(peaks[pid], kb)
			}
		}
	}
}

// processesOf returns the processes running the executable bin once none
// has for a while (up to wait), or those still running then.
func processesOf(bin string, wait time.Duration) []int {
	for end := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
		var pids []int
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			pid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			if exe, err := os.Readlink("/proc/" + d.Name() + "/exe"); err == nil && exe == bin {
				pids = append(pids, pid)
			}
		}
		if len(pids) == 0 || time.Now().After(end) {
			return pids
		}
	}
}

// vmHWM returns the VmHWM line of /proc/pid/status, in KiB.
func vmHWM(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb, err == nil
		}
	}
	return 0, false
}

// TestHomesTwoAdjacentLosses loses a slave and its buddy in the same
// region on 3 nodes. With buddies (CAPE_REPLICAS=buddy) the master,
// re-running their units, reads pages only they held: no copy is left,
// and the job must stop with an error naming the page and the nodes,
// printing nothing, never another answer. With self replicas (one host,
// the default) each lost node's helper still serves its pages, and the
// job prints the sequential output.
func TestHomesTwoAdjacentLosses(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	bin := sharedBuild(t, "./testdata/lazy")
	t.Setenv("CAPE_FAULT", "node=1,at=compute,do=crash,region=3;node=2,at=compute,do=crash,region=3")
	t.Setenv("CAPE_REPLICAS", "buddy")
	stdout, stderr, err := capeRun("3", nil, bin, nil)
	if err == nil || stdout != "" {
		t.Fatalf("buddies: cape run: %v, printed %q; want a failure and nothing printed\n%s", err, stdout, stderr)
	}
	if !regexp.MustCompile(`fetch page \d+ from node [12]: .*no replica of node [12]'s pages here`).MatchString(stderr) {
		t.Errorf("buddies: no error naming the page and both lost nodes:\n%s", stderr)
	}
	t.Setenv("CAPE_REPLICAS", "")
	want := goRun(t, "./testdata/lazy")
	stdout, stderr, err = capeRun("3", nil, bin, nil)
	if err != nil || stdout != want {
		t.Fatalf("self replicas: cape run: %v, printed %q, want %q\n%s", err, stdout, want, stderr)
	}
	if !regexp.MustCompile(`took over the \d+ pages lost node\(s\) \[(1 2|2 1)\] held`).MatchString(stderr) {
		t.Errorf("self replicas: the master did not say it took over nodes 1 and 2's pages:\n%s", stderr)
	}
}
